-- The MED between institutions: the DICT's infraction reports and refund requests.
CREATE TABLE infraction_reports (
    id uuid PRIMARY KEY,
    end_to_end_id char(32) NOT NULL REFERENCES payments (end_to_end_id),
    infraction_type varchar(16) NOT NULL CHECK (infraction_type IN ('FRAUD', 'REFUND_REQUEST', 'REFUND_CANCELLED')),
    details varchar(2000),
    reported_by varchar(20) NOT NULL CHECK (reported_by IN ('DEBITED_PARTICIPANT', 'CREDITED_PARTICIPANT')),
    status varchar(12) NOT NULL CHECK (status IN ('OPEN', 'ACKNOWLEDGED', 'CLOSED', 'CANCELLED')),
    debited char(8) NOT NULL REFERENCES participants (ispb),
    credited char(8) NOT NULL REFERENCES participants (ispb),
    analysis_result varchar(9) CHECK (analysis_result IN ('AGREED', 'DISAGREED')),
    analysis_details varchar(2000),
    created_at timestamptz NOT NULL,
    last_modified timestamptz NOT NULL
);
-- One report in progress a payment.
CREATE UNIQUE INDEX infraction_reports_in_progress_idx ON infraction_reports (end_to_end_id)
    WHERE status IN ('OPEN', 'ACKNOWLEDGED');
CREATE INDEX infraction_reports_payment_idx ON infraction_reports (end_to_end_id);
CREATE INDEX infraction_reports_debited_idx ON infraction_reports (debited, last_modified);
CREATE INDEX infraction_reports_credited_idx ON infraction_reports (credited, last_modified);
COMMENT ON TABLE infraction_reports IS 'The DICT''s infraction reports: a payment of the SPI suspected of fraud';

CREATE TABLE refund_requests (
    id uuid PRIMARY KEY,
    end_to_end_id char(32) NOT NULL REFERENCES payments (end_to_end_id),
    reason varchar(16) NOT NULL CHECK (reason IN ('FRAUD', 'OPERATIONAL_FLAW', 'REFUND_CANCELLED')),
    amount bigint NOT NULL CHECK (amount > 0),
    details varchar(2000),
    infraction_report_id uuid REFERENCES infraction_reports (id),
    status varchar(9) NOT NULL CHECK (status IN ('OPEN', 'CLOSED', 'CANCELLED')),
    requesting char(8) NOT NULL REFERENCES participants (ispb),
    contested char(8) NOT NULL REFERENCES participants (ispb),
    analysis_result varchar(18) CHECK (analysis_result IN ('TOTALLY_ACCEPTED', 'PARTIALLY_ACCEPTED', 'REJECTED')),
    analysis_details varchar(2000),
    rejection_reason varchar(15) CHECK (rejection_reason IN ('NO_BALANCE', 'ACCOUNT_CLOSURE', 'CANNOT_REFUND', 'OTHER')),
    refund_transaction_id char(32) REFERENCES returns (return_id),
    created_at timestamptz NOT NULL,
    last_modified timestamptz NOT NULL
);
CREATE UNIQUE INDEX refund_requests_open_idx ON refund_requests (end_to_end_id) WHERE status = 'OPEN';
CREATE INDEX refund_requests_payment_idx ON refund_requests (end_to_end_id);
CREATE INDEX refund_requests_requesting_idx ON refund_requests (requesting, last_modified);
CREATE INDEX refund_requests_contested_idx ON refund_requests (contested, last_modified);
COMMENT ON TABLE refund_requests IS 'The DICT''s refund requests: the payer''s participant asks a payment back';

-- A fraud counted by a report is the report's: cancelled, it stops counting.
ALTER TABLE directory_events ADD COLUMN report_id uuid REFERENCES infraction_reports (id);
