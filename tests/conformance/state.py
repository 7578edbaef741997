"""Valid data the standard itself refuses because of what exists: the description's violations that
depend on the state of a charge, a batch or a recurrence, which no schema can say and no generator
can foresee (schemathesis sends the same txid to a charge it cancelled a moment before).

A refusal of valid data (``positive_data_acceptance``) is forgiven only when it is exactly one of these:
a 400 of the operation's ``...OperacaoInvalida`` type whose ``detail`` is the service's wording of that
violation. Each rule quotes the description's violation it is.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["STATE_RULES", "refused_by_state"]

TYPE = "https://pix.bcb.gov.br/api/v2/error/"


@dataclass(frozen=True)
class StateRule:
    operations: frozenset[str]
    problem_type: str
    detail: str
    """A regular expression the whole ``detail`` matches."""
    violation: str
    """The description's words for it."""


_CHARGE_WRITES = frozenset({"PUT /cob/{txid}", "PATCH /cob/{txid}"})
_DUE_WRITES = frozenset({"PUT /cobv/{txid}", "PATCH /cobv/{txid}"})
_RECURRING_CHARGE_WRITES = frozenset({"POST /cobr", "PUT /cobr/{txid}"})

STATE_RULES = (
    StateRule(
        _CHARGE_WRITES,
        "CobOperacaoInvalida",
        r"an? \w+ charge cannot be (revised|cancelled)",
        "A cobrança já existe, não está no status ATIVA, e a presente requisição busca alterá-la.",
    ),
    StateRule(
        frozenset({"PATCH /cob/{txid}"}),
        "CobOperacaoInvalida",
        r"Invalid charge change: (valor\.(modalidadeAlteracao|original): must be (0|0\.00|above 0\.00)"
        r" with (saque|troco)(; )?)+",
        "Quando usados o `saque` ou `troco` não será permitida a alteração do `valor.original` recebido."
        " Na presença de `saque` ou `troco` o recebimento do campo `valor.modalidadeAlteracao` com valor"
        " 1 (um) é considerado erro.",
    ),
    StateRule(
        _DUE_WRITES,
        "CobVOperacaoInvalida",
        r"an? \w+ charge cannot be (revised|cancelled)",
        "A cobrança não está ATIVA, e a presente requisição busca alterá-la.",
    ),
    StateRule(
        frozenset({"PUT /lotecobv/{id}"}),
        "LoteCobVOperacaoInvalida",
        r"Invalid batch of due-date charges: cobsv: a batch made already is revised with exactly its own"
        r" charges, none added or left out",
        "A presente requisição busca alterar um lote já existente, entretanto contém um array de"
        " solicitações de alteração de cobranças que não referencia exatamente as mesmas cobranças.",
    ),
    StateRule(
        frozenset({"PATCH /lotecobv/{id}"}),
        "LoteCobVOperacaoInvalida",
        r"Invalid batch of due-date charges: (cobsv\[\d+\]\.txid: \w+ is not a charge of batch -?\d+(; )?)+",
        "A presente requisição busca alterar um lote já existente e contém, no array de cobranças"
        " representado por cobsv, uma cobrança não existente no array de cobranças atribuído pela"
        " requisição original que criou o lote.",
    ),
    StateRule(
        _RECURRING_CHARGE_WRITES,
        "CobROperacaoInvalida",
        r"idRec: names no recurrence of yours",
        "A requisição que busca criar uma cobrança recorrente está semanticamente errada (its"
        " `idRec` names no recurrence of the receiver: a generated one never does, and POST /cobr"
        " documents no 404).",
    ),
    StateRule(
        _RECURRING_CHARGE_WRITES,
        "CobROperacaoInvalida",
        r"Invalid recurring charge: idRec: the recurrence is \w+: charges are made of an APROVADA one"
        r"(; (calendario\.dataDeVencimento: must be within the recurrence's calendar"
        r"|valor\.original: must be the recurrence's fixed amount"
        r"|recebedor\.conta: not an account of yours))*",
        "A requisição que busca criar uma cobrança recorrente está semanticamente errada (its recurrence"
        " is not APROVADA: the suite's recurrences are never authorized by a payer), with what else it"
        " reads of that recurrence: `Os campos cobr.recebedor.conta e cobr.recebedor.agencia"
        " correspondem a uma conta que não pertence a este usuário recebedor`, a due date out of its"
        " calendar, an amount other than its fixed one.",
    ),
    StateRule(
        _RECURRING_CHARGE_WRITES,
        "CobROperacaoInvalida",
        r"The recurrence has a recurring charge in this cycle already \(one not REJEITADA or CANCELADA\)\.",
        "Existe uma CobR com status diferente de REJEITADA e CANCELADA referente ao mesmo `cobr.idRec`"
        " com `calendario.dataDeVencimento` no mesmo ciclo.",
    ),
    StateRule(
        frozenset({"PUT /cobr/{txid}"}),
        "CobROperacaoInvalida",
        r"a charge with (this txid|txid \w+) exists already",
        "O campo `cobr.txid` encontra-se em uso.",
    ),
    StateRule(
        frozenset({"PATCH /cobr/{txid}"}),
        "CobROperacaoInvalida",
        r"an? (CANCELADA|REJEITADA|CONCLUIDA|EXPIRADA) recurring charge cannot be cancelled",
        "A requisição que busca alterar uma cobrança recorrente está semanticamente errada (the"
        " suite cancelled it a moment before).",
    ),
    StateRule(
        frozenset({"POST /solicrec"}),
        "SolicRecOperacaoInvalida",
        r"the request SC\w+ is (CRIADA|ENVIADA|RECEBIDA)",
        "Existe uma solicitação ativa referente ao mesmo `solicrec.idRec`.",
    ),
    StateRule(
        frozenset({"POST /solicrec"}),
        "SolicRecOperacaoInvalida",
        r"idRec: the recurrence is \w+: only a CRIADA one is asked for authorization",
        "A requisição que busca criar uma solicitação de confirmação de recorrência está"
        " semanticamente errada (its recurrence is no longer CRIADA: the suite cancelled it).",
    ),
    StateRule(
        frozenset({"PATCH /solicrec/{idSolicRec}"}),
        "SolicRecOperacaoInvalida",
        r"A request whose status is not CRIADA, ENVIADA or RECEBIDA cannot be cancelled\.",
        "Não é possível cancelar uma solicitação de recorrência com o status diferente de CRIADA,"
        " ENVIADA ou RECEBIDA.",
    ),
    StateRule(
        frozenset({"PATCH /rec/{idRec}"}),
        "RecOperacaoInvalida",
        r"the recurrence is (EXPIRADA|CANCELADA|REJEITADA): it takes no change",
        "A recorrência encontra-se expirada, cancelada ou rejeitada.",
    ),
)


def refused_by_state(operation: str, status: int, problem_type: str, detail: str) -> bool:
    """Whether a refusal of valid data is one of :data:`STATE_RULES`."""
    return status == 400 and any(
        operation in rule.operations
        and problem_type == TYPE + rule.problem_type
        and re.fullmatch(rule.detail, detail) is not None
        for rule in STATE_RULES
    )
