package io.tributary.test.clients;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * One row change as a Debezium-format client delivers it (Debezium's envelope, also Flink CDC's JSON): the operation
 * ({@code c}, {@code u}, {@code d}; {@code r} for a snapshot read), the database and table it names, the row's
 * {@code id}, and where the source says it comes from: the transaction's GTID (MySQL {@code uuid:n}, MariaDB
 * {@code domain-server-seq}) and the binlog file and position of its transaction.
 */
record ChangeRow(String op, String database, String table, long id, String gtid, String file, long position,
        JsonNode image) {

    /** The row change in a printed event; null for anything else (a schema change, a heartbeat). */
    static ChangeRow of(JsonNode event) {
        JsonNode op = event.get("op");
        JsonNode source = event.get("source");
        if (op == null || source == null || op.isNull()) {
            return null;
        }
        JsonNode row = event.hasNonNull("after") ? event.get("after") : event.get("before");
        return new ChangeRow(op.asText(), source.path("db").asText(), source.path("table").asText(),
                row == null ? -1 : row.path("id").asLong(-1), source.hasNonNull("gtid") ? source.get("gtid").asText() : null,
                source.path("file").asText(), source.path("pos").asLong(-1), row);
    }

    /** What is compared with what was written: operation, logical table and row id. */
    String change() {
        return op + " " + database + "." + table + " " + id;
    }
}
