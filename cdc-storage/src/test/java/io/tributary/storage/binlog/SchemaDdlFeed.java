package io.tributary.storage.binlog;

import io.tributary.core.event.BinlogFlavor;
import io.tributary.core.position.ShardCheckpoint;
import io.tributary.core.position.ShardPosition;
import io.tributary.core.schema.LogicalSchema;
import io.tributary.core.schema.SchemaChange;
import io.tributary.core.schema.SchemaDdl;
import io.tributary.core.transaction.GlobalEvent;
import io.tributary.core.transaction.GlobalTransaction;
import java.util.Iterator;
import java.util.List;

/**
 * A deterministic feed of DDL transactions for the schema history tests: the seed {@code CREATE TABLE shop.orders
 * (id int primary key)}, then transaction {@code i} (GTID sequence {@code i}) adds column {@code c<i>}, each with
 * the shard checkpoint {@code shard-0 shard-bin.000001:<i>}, so a recovered checkpoint tells which came last.
 */
final class SchemaDdlFeed {
    static final String SEED = "CREATE TABLE orders (id int NOT NULL PRIMARY KEY)";

    private SchemaDdlFeed() {
    }

    static LogicalSchema seed(BinlogFlavor flavor) {
        SchemaDdl ddl = new SchemaDdl(flavor);
        LogicalSchema s = io.tributary.storage.schema.SchemaHistory.emptySchema(flavor);
        s = ((SchemaDdl.Applied) ddl.apply(s, "", "CREATE DATABASE shop")).schema();
        return ((SchemaDdl.Applied) ddl.apply(s, "shop", SEED)).schema();
    }

    static String statement(long i) {
        return "ALTER TABLE orders ADD COLUMN c" + i + " varchar(" + (i % 50 + 1) + ") DEFAULT 'v" + i + "'";
    }

    /** Transaction {@code i}, applied to {@code before}. */
    static GlobalTransaction transaction(long i, LogicalSchema before, BinlogFlavor flavor) {
        String sql = statement(i);
        SchemaDdl.Applied a = (SchemaDdl.Applied) new SchemaDdl(flavor).apply(before, "shop", sql);
        SchemaChange change = new SchemaChange("shop", sql, a.schema(), a.tables(), a.databases());
        ShardCheckpoint cp = ShardCheckpoint.at("shard-0", ShardPosition.at("shard-bin.000001", i));
        return new GlobalTransaction() {
            @Override
            public Kind kind() {
                return Kind.DDL;
            }

            @Override
            public long commitTimeMicros() {
                return 1_700_000_000_000_000L + i;
            }

            @Override
            public Iterator<GlobalEvent> events() {
                return List.<GlobalEvent>of(new GlobalEvent.Query(1_700_000_000L + i, "shop", sql)).iterator();
            }

            @Override
            public List<ShardCheckpoint> checkpoints() {
                return List.of(cp);
            }

            @Override
            public SchemaChange schemaChange() {
                return change;
            }

            @Override
            public String provenance() {
                return "shard-0 " + i;
            }
        };
    }

    /** The schema after transactions 1..n: the seed with columns c1..cn. */
    static LogicalSchema expected(long n, BinlogFlavor flavor) {
        LogicalSchema s = seed(flavor);
        for (long i = 1; i <= n; i++) {
            s = transaction(i, s, flavor).schemaChange().after();
        }
        return s;
    }
}
