-- The DICT's claims (reivindicações) of ownership and portability.
CREATE TABLE claims (
    id uuid PRIMARY KEY,
    type varchar(11) NOT NULL CHECK (type IN ('OWNERSHIP', 'PORTABILITY')),
    key varchar(77) NOT NULL,
    key_type varchar(5) NOT NULL CHECK (key_type IN ('CPF', 'CNPJ', 'EMAIL', 'PHONE')),
    claimer_participant char(8) NOT NULL REFERENCES participants (ispb),
    claimer_branch varchar(4) CHECK (claimer_branch ~ '^[0-9]{1,4}$'),
    claimer_account_number varchar(20) NOT NULL CHECK (claimer_account_number ~ '^[0-9]{1,20}$'),
    claimer_account_type varchar(4) NOT NULL CHECK (claimer_account_type IN ('CACC', 'TRAN', 'SLRY', 'SVGS')),
    claimer_opened_at timestamptz NOT NULL,
    claimer_type varchar(14) NOT NULL CHECK (claimer_type IN ('NATURAL_PERSON', 'LEGAL_PERSON')),
    claimer_tax_id varchar(14) NOT NULL CHECK (claimer_tax_id ~ '^([0-9]{11}|[0-9A-Z]{12}[0-9]{2})$'),
    claimer_name varchar(140) NOT NULL,
    claimer_trade_name varchar(140),
    donor_participant char(8) NOT NULL REFERENCES participants (ispb),
    donor_owned_since timestamptz NOT NULL,
    status varchar(18) NOT NULL
        CHECK (status IN ('OPEN', 'WAITING_RESOLUTION', 'CONFIRMED', 'CANCELLED', 'COMPLETED')),
    resolution_period_end timestamptz NOT NULL,
    completion_period_end timestamptz CHECK ((completion_period_end IS NULL) = (type = 'PORTABILITY')),
    confirm_reason varchar(17),
    cancel_reason varchar(17),
    cancelled_by varchar(7) CHECK (cancelled_by IN ('DONOR', 'CLAIMER')),
    completed_request uuid,
    created_at timestamptz NOT NULL,
    last_modified timestamptz NOT NULL,
    CHECK ((status = 'CANCELLED') = (cancelled_by IS NOT NULL AND cancel_reason IS NOT NULL)),
    CHECK ((status = 'COMPLETED') = (completed_request IS NOT NULL))
);
-- One open claim a key: the second is ClaimAlreadyExistsForKey.
CREATE UNIQUE INDEX claims_open_key_idx ON claims (key) WHERE status IN ('OPEN', 'WAITING_RESOLUTION', 'CONFIRMED');
CREATE INDEX claims_donor_idx ON claims (donor_participant, last_modified);
CREATE INDEX claims_claimer_idx ON claims (claimer_participant, last_modified);
COMMENT ON TABLE claims IS
    'The DICT''s claims: a key ported by its owner or claimed by another person, from the donor to the claimer';
