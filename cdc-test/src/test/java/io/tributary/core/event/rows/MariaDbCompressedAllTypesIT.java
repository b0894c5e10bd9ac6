package io.tributary.core.event.rows;

import io.tributary.test.junit.WithShards;

/**
 * The all-types suite on an embedded MariaDB shard that zlib-compresses every rows event of 10 bytes or
 * more ({@code log_bin_compress}): the values must come out the same after the event decoder expands
 * them, and mariadb-binlog must print the same lines.
 */
@WithShards(count = 1, serverOptions = {"--log-bin-compress=ON", "--log-bin-compress-min-len=10"})
class MariaDbCompressedAllTypesIT extends MariaDbAllTypesIT {

    @Override
    boolean compressesRowsEvents() {
        return true;
    }
}
