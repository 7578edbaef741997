"""A ``cobv``'s terms kept in the domain's own form (``pixinfra.due_terms.terms_text``) in
``charges.terms`` and ``charge_revisions.terms``, instead of the standard's ``calendario`` and
``valor``: each row in the wire form is rewritten in place, and a row already in the new form is
left alone (the statement can run twice).

``{"calendario": {"dataDeVencimento": "2026-12-10", "validadeAposVencimento": 30}, "valor":
{"original": "123.45", "multa": {"modalidade": 2, "valorPerc": "2.00"}}}`` becomes
``{"original": 12345, "due_date": "2026-12-10", "days_after_due": 30, "fine": {"modality": 2,
"value": 200}, "interest": null, "rebate": null, "discount": null}``: each amount or percentage
(written with two decimals) as an integer of hundredths, ``juros`` as ``interest``,
``abatimento`` as ``rebate``, ``desconto`` as ``discount`` (``descontoDataFixa`` as ``dates``,
each ``{"until", "value"}``; ``value`` 0 when it has dates, ``dates`` empty when it has not).

The reverse is :data:`REVERSE` (run after :data:`HELPERS`, as :data:`SQL` is): it writes each
row back in the wire form, for code older than this migration; the service never runs it.
"""

from __future__ import annotations

from piccolo.apps.migrations.auto.migration_manager import MigrationManager

from pixinfra.postgres.sql_migration import sql_migration

ID = "2026-11-28T03:30:00:000000"
VERSION = "1.38.0"
DESCRIPTION = "charges, charge_revisions: a cobv's terms in the domain's own form"

# Helpers of this session only (pg_temp), gone when its connection closes; "OR REPLACE": the
# statements may run again in the same session.
HELPERS = """
CREATE OR REPLACE FUNCTION pg_temp.hundredths(text) RETURNS bigint LANGUAGE sql IMMUTABLE STRICT
    AS $$ SELECT ($1::numeric * 100)::bigint $$;
CREATE OR REPLACE FUNCTION pg_temp.two_decimals(bigint) RETURNS text LANGUAGE sql IMMUTABLE STRICT
    AS $$ SELECT to_char($1 / 100.0, 'FM9999999990.00') $$;
CREATE OR REPLACE FUNCTION pg_temp.rate_terms(jsonb) RETURNS jsonb LANGUAGE sql IMMUTABLE STRICT AS $$
    SELECT jsonb_build_object(
        'modality', ($1->>'modalidade')::int, 'value', pg_temp.hundredths($1->>'valorPerc'))
$$;
CREATE OR REPLACE FUNCTION pg_temp.rate_wire(jsonb) RETURNS jsonb LANGUAGE sql IMMUTABLE STRICT AS $$
    SELECT jsonb_build_object(
        'modalidade', ($1->>'modality')::int, 'valorPerc', pg_temp.two_decimals(($1->>'value')::bigint))
$$;
"""

SQL = """
CREATE OR REPLACE FUNCTION pg_temp.terms(wire jsonb) RETURNS jsonb LANGUAGE sql IMMUTABLE STRICT AS $$
    SELECT jsonb_build_object(
        'original', pg_temp.hundredths(wire->'valor'->>'original'),
        'due_date', wire->'calendario'->>'dataDeVencimento',
        'days_after_due', (wire->'calendario'->>'validadeAposVencimento')::int,
        'fine', pg_temp.rate_terms(wire->'valor'->'multa'),
        'interest', pg_temp.rate_terms(wire->'valor'->'juros'),
        'rebate', pg_temp.rate_terms(wire->'valor'->'abatimento'),
        'discount', CASE WHEN wire->'valor'->'desconto' IS NOT NULL THEN jsonb_build_object(
            'modality', (wire->'valor'->'desconto'->>'modalidade')::int,
            'value', coalesce(pg_temp.hundredths(wire->'valor'->'desconto'->>'valorPerc'), 0),
            'dates', coalesce((
                SELECT jsonb_agg(
                    jsonb_build_object(
                        'until', item->>'data', 'value', pg_temp.hundredths(item->>'valorPerc'))
                    ORDER BY position)
                FROM jsonb_array_elements(wire->'valor'->'desconto'->'descontoDataFixa')
                    WITH ORDINALITY AS dates (item, position)
            ), '[]'::jsonb)
        ) END
    )
$$;
UPDATE charges SET terms = pg_temp.terms(terms) WHERE terms ? 'calendario';
UPDATE charge_revisions SET terms = pg_temp.terms(terms) WHERE terms ? 'calendario';
"""

REVERSE = """
CREATE OR REPLACE FUNCTION pg_temp.wire(terms jsonb) RETURNS jsonb LANGUAGE sql IMMUTABLE STRICT AS $$
    SELECT jsonb_build_object(
        'calendario', jsonb_build_object(
            'dataDeVencimento', terms->>'due_date',
            'validadeAposVencimento', (terms->>'days_after_due')::int),
        'valor', jsonb_strip_nulls(jsonb_build_object(
            'original', pg_temp.two_decimals((terms->>'original')::bigint),
            'multa', pg_temp.rate_wire(nullif(terms->'fine', 'null')),
            'juros', pg_temp.rate_wire(nullif(terms->'interest', 'null')),
            'abatimento', pg_temp.rate_wire(nullif(terms->'rebate', 'null')),
            'desconto', CASE WHEN jsonb_typeof(terms->'discount') = 'object' THEN
                jsonb_build_object('modalidade', (terms->'discount'->>'modality')::int)
                || CASE WHEN (terms->'discount'->>'modality')::int <= 2 THEN  -- fixed dates
                    jsonb_build_object('descontoDataFixa', (
                        SELECT jsonb_agg(
                            jsonb_build_object(
                                'data', item->>'until',
                                'valorPerc', pg_temp.two_decimals((item->>'value')::bigint))
                            ORDER BY position)
                        FROM jsonb_array_elements(terms->'discount'->'dates')
                            WITH ORDINALITY AS dates (item, position)))
                ELSE jsonb_build_object(
                    'valorPerc', pg_temp.two_decimals((terms->'discount'->>'value')::bigint))
                END
            END
        ))
    )
$$;
UPDATE charges SET terms = pg_temp.wire(terms) WHERE terms ? 'due_date';
UPDATE charge_revisions SET terms = pg_temp.wire(terms) WHERE terms ? 'due_date';
"""


async def forwards() -> MigrationManager:
    return sql_migration(ID, DESCRIPTION, HELPERS + SQL)
