package io.tributary.core.framing;

/**
 * What one event is to transaction framing, as {@link TransactionFramer} found it from the event's type byte and
 * the few body bytes framing reads (a MariaDB GTID's flags, a query's first 40 statement bytes, an XA_PREPARE's
 * one-phase flag). It says what the event is, not what it did: whether it opened or ended a transaction depends on
 * the framer's {@link FramerState} (a {@link #COMMIT} outside a transaction ends nothing).
 */
public enum Boundary {
    /** Any other event: format description, rotate, annotations, GTID lists, ... */
    OTHER,
    /**
     * A TABLE_MAP or a rows event (any version, MariaDB compressed ones included): part of the open transaction;
     * outside one it opens a transaction (MariaDB writes the rows of {@code CREATE TABLE ... SELECT} after the
     * statement that ended the DDL's own group).
     */
    ROW_DATA,
    /** A replication heartbeat (HEARTBEAT, HEARTBEAT_V2): not in the binlog, moves no position. */
    HEARTBEAT,
    /** MySQL GTID (tagged or not): opens a group that carries a GTID. */
    GTID,
    /** MySQL ANONYMOUS_GTID: opens a group without a GTID. */
    ANONYMOUS_GTID,
    /** MariaDB GTID without {@code FL_STANDALONE}: opens a transaction that only XID or COMMIT ends. */
    MARIADB_GTID,
    /** MariaDB GTID with {@code FL_STANDALONE}: opens a group of one statement (a DDL) without BEGIN/COMMIT. */
    MARIADB_GTID_STANDALONE,
    /** A {@code BEGIN} query: opens a transaction, or marks the group a GTID opened as begun. */
    BEGIN,
    /** An {@code XA START} / {@code XA BEGIN} query: as {@link #BEGIN}. */
    XA_START,
    /** An {@code XA END} query: neither opens nor ends anything. */
    XA_END,
    /** A {@code COMMIT} query: ends the open transaction. */
    COMMIT,
    /** A {@code ROLLBACK} query (not {@code ROLLBACK TO}): ends the open transaction. */
    ROLLBACK,
    /**
     * An {@code XA COMMIT} query: ends whatever transaction is open (the second phase after a GTID, MySQL's and
     * MariaDB's alike, or a one-phase commit inside its XA START); outside one, a transaction of its own.
     */
    XA_COMMIT,
    /** An {@code XA ROLLBACK} query: as {@link #XA_COMMIT}. */
    XA_ROLLBACK,
    /**
     * Any other query: a DDL (a transaction of its own) outside a transaction or as the one statement of a GTID
     * group, a statement of the transaction inside {@code BEGIN}.
     */
    STATEMENT,
    /** XID: ends the open transaction (commit). */
    XID,
    /** XA_PREPARE (two-phase): ends the open transaction's branch, prepared. */
    XA_PREPARE,
    /** XA_PREPARE with its one-phase flag set ({@code XA COMMIT ... ONE PHASE}): ends the transaction, committed. */
    XA_PREPARE_ONE_PHASE,
    /** MySQL TRANSACTION_PAYLOAD: a whole compressed transaction; ends the group its GTID opened. */
    TRANSACTION_PAYLOAD
}
