package io.tributary.test.shard;

import io.tributary.test.junit.WithShards;

/** Runs where a Docker engine answers; reported skipped, with the reason, where none does. */
@WithShards(count = 2, flavor = ShardFlavor.MYSQL_8_4)
class MySql84ShardBinlogIT extends ShardBinlogIT {
}
