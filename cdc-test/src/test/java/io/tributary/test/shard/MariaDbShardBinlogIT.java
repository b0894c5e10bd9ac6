package io.tributary.test.shard;

import io.tributary.test.junit.WithShards;

@WithShards(count = 2, flavor = ShardFlavor.MARIADB_10_11)
class MariaDbShardBinlogIT extends ShardBinlogIT {
}
