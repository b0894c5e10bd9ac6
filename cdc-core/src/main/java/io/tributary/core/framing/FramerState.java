package io.tributary.core.framing;

/** Where a {@link TransactionFramer} stands between two events. */
public enum FramerState {
    /** Between transactions: an event here is a boundary of its own. */
    OUTSIDE,
    /**
     * A GTID event (MySQL GTID or anonymous GTID, MariaDB GTID with {@code FL_STANDALONE}) opened a group and no
     * {@code BEGIN} followed yet: the next statement that is not {@code BEGIN}/{@code XA START} ends it (a DDL, a
     * second-phase {@code XA COMMIT}).
     */
    GROUP,
    /**
     * Inside a transaction opened by {@code BEGIN}/{@code XA START} (or a MariaDB GTID without
     * {@code FL_STANDALONE}): only XID, XA_PREPARE, a compressed transaction or a {@code COMMIT}/{@code ROLLBACK}
     * query ends it.
     */
    BEGUN,
    /** An event could not be framed (a body shorter than its fields); terminal, every later event is refused. */
    FAILED;

    /** Whether a transaction is open. */
    public boolean inTransaction() {
        return this == GROUP || this == BEGUN;
    }
}
