package io.tributary.core.event.rows;

import io.tributary.core.event.ColumnType;
import io.tributary.test.junit.WithShards;
import io.tributary.test.shard.MySqlContainerShard;
import io.tributary.test.shard.ShardCluster;
import io.tributary.test.shard.ShardFlavor;

/**
 * The all-types suite on a MySQL 8.0 shard in a container (needs a Docker engine; reported skipped with the
 * reason where none answers). The binlog files are copied out of the container. JSON is MySQL's binary
 * JSON, compared by its text.
 */
@WithShards(count = 1, flavor = ShardFlavor.MYSQL_8_0)
class MySql80AllTypesIT extends AllTypesIT {

    @Override
    byte[] readBinlog(ShardCluster cluster, String fileName) {
        return ((MySqlContainerShard) cluster.shard(0)).readBinlogFile(fileName);
    }

    @Override
    ColumnType jsonColumnType() {
        return ColumnType.JSON;
    }

    @Override
    String jsonText(Object decoded) {
        if (!(decoded instanceof JsonDocument d)) {
            throw new AssertionError("MySQL JSON decodes as a binary JSON document, not " + decoded);
        }
        return d.toJson();
    }

    /** MySQL's SIGNEDNESS metadata covers only the numeric types, not YEAR. */
    @Override
    boolean yearIsUnsigned() {
        return false;
    }

    /** mariadb-binlog stops at MySQL's JSON column type (245), which MariaDB does not have. */
    @Override
    String verboseComparisonUnavailable() {
        return "mariadb-binlog cannot print MySQL binary JSON columns (type 245); MySQL JSON is checked against"
                + " mysql-binlog-connector-java by the corpus tests";
    }
}
