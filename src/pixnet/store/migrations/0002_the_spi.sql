-- The SPI: each institution's settlement account, the payments and returns it settles, every
-- movement of a settlement account, and the messages each participant polls.
CREATE TABLE settlement_accounts (
    ispb char(8) PRIMARY KEY REFERENCES participants (ispb),
    balance bigint NOT NULL DEFAULT 0 CHECK (balance >= 0),
    updated_at timestamptz NOT NULL DEFAULT now()
);
COMMENT ON TABLE settlement_accounts IS
    'Each institution''s settlement account (conta PI), in centavos: never below zero';
INSERT INTO settlement_accounts (ispb) SELECT ispb FROM participants;

CREATE TABLE payments (
    end_to_end_id char(32) PRIMARY KEY,
    message_id char(32) NOT NULL,
    payer char(8) NOT NULL REFERENCES participants (ispb),
    payee char(8) NOT NULL REFERENCES participants (ispb),
    amount bigint NOT NULL CHECK (amount > 0),
    key varchar(77),
    payee_tax_id varchar(14) NOT NULL,
    payee_branch varchar(4),
    payee_account varchar(20) NOT NULL,
    document text NOT NULL,
    status varchar(4) NOT NULL CHECK (status IN ('PDNG', 'ACSC', 'RJCT')),
    reason varchar(4),
    deadline timestamptz NOT NULL,
    created_at timestamptz NOT NULL,
    settled_at timestamptz,
    returned bigint NOT NULL DEFAULT 0 CHECK (returned >= 0 AND returned <= amount),
    CHECK ((status = 'RJCT') = (reason IS NOT NULL)),
    CHECK ((status = 'ACSC') = (settled_at IS NOT NULL)),
    CHECK (returned = 0 OR status = 'ACSC')
);
CREATE INDEX payments_waiting_idx ON payments (deadline) WHERE status = 'PDNG';
COMMENT ON TABLE payments IS
    'pacs.008 received: waiting for the payee (PDNG), settled (ACSC) or rejected (RJCT)';

CREATE TABLE returns (
    return_id char(32) PRIMARY KEY,
    end_to_end_id char(32) NOT NULL REFERENCES payments (end_to_end_id),
    message_id char(32) NOT NULL,
    sender char(8) NOT NULL REFERENCES participants (ispb),
    receiver char(8) NOT NULL REFERENCES participants (ispb),
    amount bigint NOT NULL CHECK (amount > 0),
    document text NOT NULL,
    status varchar(4) NOT NULL CHECK (status IN ('ACSC', 'RJCT')),
    reason varchar(4),
    created_at timestamptz NOT NULL,
    settled_at timestamptz,
    CHECK ((status = 'RJCT') = (reason IS NOT NULL)),
    CHECK ((status = 'ACSC') = (settled_at IS NOT NULL))
);
CREATE INDEX returns_payment_idx ON returns (end_to_end_id);
COMMENT ON TABLE returns IS 'pacs.004 received: settled (ACSC) or rejected (RJCT)';

CREATE TABLE settlement_movements (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    ispb char(8) NOT NULL REFERENCES settlement_accounts (ispb),
    amount bigint NOT NULL CHECK (amount <> 0),
    kind varchar(10) NOT NULL CHECK (kind IN ('FUNDING', 'WITHDRAWAL', 'PAYMENT', 'RETURN')),
    reference varchar(36) NOT NULL,
    at timestamptz NOT NULL
);
CREATE INDEX settlement_movements_reference_idx ON settlement_movements (reference);
COMMENT ON TABLE settlement_movements IS
    'Every change of a settlement account: the operator''s funding or withdrawal, or one side of a payment or return';

CREATE TABLE messages (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    recipient char(8) NOT NULL REFERENCES participants (ispb),
    body text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX messages_recipient_idx ON messages (recipient, id);
COMMENT ON TABLE messages IS
    'What each participant polls: payments to answer, outcomes (pacs.002), returns (pacs.004)';
