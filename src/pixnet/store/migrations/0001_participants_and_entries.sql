-- The participants, and the DICT's entries and the events its look-ups count.
CREATE TABLE participants (
    ispb char(8) PRIMARY KEY CHECK (ispb ~ '^[0-9]{8}$'),
    name varchar(140) NOT NULL CHECK (length(btrim(name)) > 0),
    certificate text NOT NULL,
    fingerprint char(64) NOT NULL UNIQUE CHECK (fingerprint ~ '^[0-9a-f]{64}$'),
    created_at timestamptz NOT NULL DEFAULT now()
);
COMMENT ON TABLE participants IS
    'An institution of the network: its ISPB and the certificate it signs and connects with';

CREATE TABLE entries (
    key varchar(77) PRIMARY KEY,
    key_type varchar(5) NOT NULL CHECK (key_type IN ('CPF', 'CNPJ', 'EMAIL', 'PHONE', 'EVP')),
    participant char(8) NOT NULL REFERENCES participants (ispb),
    branch varchar(4) CHECK (branch ~ '^[0-9]{1,4}$'),
    account_number varchar(20) NOT NULL CHECK (account_number ~ '^[0-9]{1,20}$'),
    account_type varchar(4) NOT NULL CHECK (account_type IN ('CACC', 'TRAN', 'SLRY', 'SVGS')),
    opened_at timestamptz NOT NULL,
    owner_type varchar(14) NOT NULL CHECK (owner_type IN ('NATURAL_PERSON', 'LEGAL_PERSON')),
    tax_id varchar(14) NOT NULL CHECK (tax_id ~ '^([0-9]{11}|[0-9A-Z]{12}[0-9]{2})$'),
    owner_name varchar(140) NOT NULL,
    trade_name varchar(140),
    created_at timestamptz NOT NULL,
    owned_since timestamptz NOT NULL,
    request_id uuid NOT NULL,
    UNIQUE (participant, request_id)
);
CREATE INDEX entries_account_idx ON entries (participant, account_number, branch);
COMMENT ON TABLE entries IS 'The DICT''s entries (vínculos): a key bound to an account and its owner';

CREATE TABLE directory_events (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    kind varchar(16) NOT NULL
        CHECK (kind IN ('SETTLEMENTS', 'REPORTED_FRAUDS', 'CONFIRMED_FRAUDS', 'REJECTED')),
    key varchar(77),
    tax_id varchar(14) NOT NULL,
    participant char(8) NOT NULL,
    branch varchar(4),
    account_number varchar(20) NOT NULL,
    at timestamptz NOT NULL
);
CREATE INDEX directory_events_key_idx ON directory_events (key, at);
CREATE INDEX directory_events_owner_idx ON directory_events (tax_id, at);
CREATE INDEX directory_events_account_idx ON directory_events (participant, account_number, at);
COMMENT ON TABLE directory_events IS
    'What a look-up''s anti-fraud counters count, by key, owner and account';
