package io.tributary.core.event;

/**
 * QUERY_EVENT (2), and the query part of EXECUTE_LOAD_QUERY (18): a statement, BEGIN, COMMIT, DDL or
 * {@code XA ...}. Post-header: {@code thread_id(4) exec_time(4) db_length(1) error_code(2)
 * status_vars_length(2)} (plus 13 load-file bytes for EXECUTE_LOAD_QUERY, skipped); then the status
 * variables, the database name and a NUL, then the SQL to the end of the body.
 *
 * <p>The SQL is decoded as UTF-8 for inspection; byte-exact relaying uses {@link BinlogEvent#rawBytes()}.
 *
 * @param threadId   session id on the source
 * @param execTime   seconds the statement ran
 * @param errorCode  error the statement raised on the source (0 for none)
 * @param database   default database, empty for none
 * @param sql        the statement text
 * @param status     the status variables
 */
public record QueryEvent(long threadId, long execTime, int errorCode, String database, String sql,
        QueryStatusVariables status) implements EventBody {

    static QueryEvent read(EventReader r, int postHeaderLength) {
        long threadId = r.u32("thread_id");
        long execTime = r.u32("exec_time");
        int dbLength = r.u8("db_length");
        int errorCode = r.u16("error_code");
        int statusLength = 0;
        int consumed = 11;
        if (postHeaderLength >= 13) {
            statusLength = r.u16("status_vars_length");
            consumed = 13;
        }
        r.skip(Math.max(0, postHeaderLength - consumed), "query post-header");
        QueryStatusVariables status = QueryStatusVariables.read(r.slice(statusLength, "status variables"));
        String database = r.string(dbLength, "database name");
        r.skip(1, "database name terminator");
        return new QueryEvent(threadId, execTime, errorCode, database, r.rest(), status);
    }
}
