package io.tributary.core.event.rows;

import io.tributary.core.event.ColumnType;
import io.tributary.test.junit.WithShards;
import io.tributary.test.shard.EmbeddedMariaDbShard;
import io.tributary.test.shard.ShardCluster;
import java.nio.file.Files;

/** The all-types suite on an embedded MariaDB 10.11 shard, whose binlog files are read from its directory. */
@WithShards(count = 1)
class MariaDbAllTypesIT extends AllTypesIT {

    @Override
    byte[] readBinlog(ShardCluster cluster, String fileName) throws Exception {
        return Files.readAllBytes(((EmbeddedMariaDbShard) cluster.shard(0)).binlogDirectory().resolve(fileName));
    }

    /** MariaDB's JSON is an alias of LONGTEXT with a validity check: the binlog carries it as a BLOB column. */
    @Override
    ColumnType jsonColumnType() {
        return ColumnType.BLOB;
    }

    @Override
    String jsonText(Object decoded) {
        if (!(decoded instanceof String s)) {
            throw new AssertionError("MariaDB JSON decodes as the LONGTEXT String a user reads, not " + decoded);
        }
        return s;
    }

    /** MariaDB's YEAR is an unsigned TINYINT underneath, and its SIGNEDNESS metadata says so. */
    @Override
    boolean yearIsUnsigned() {
        return true;
    }

    @Override
    String verboseComparisonUnavailable() {
        return null;
    }
}
