package io.tributary.test.shard;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * What a {@link ShardCluster} starts.
 *
 * @param count          number of shards, 1 to {@value #MAX_SHARDS}
 * @param flavor         server kind
 * @param baseDir        directory under which each cluster gets its own directory
 * @param startTimeout   how long one shard may take to accept connections
 * @param firstServerId  {@code server_id} of shard 0; shard i gets {@code firstServerId + i}
 * @param serverOptions  extra server options for every shard (e.g. {@code --max-binlog-size=1M})
 */
public record ShardClusterConfig(int count, ShardFlavor flavor, Path baseDir, Duration startTimeout,
                                 long firstServerId, List<String> serverOptions) {

    public static final int MAX_SHARDS = 8;
    public static final int DEFAULT_SHARDS = 2;

    public ShardClusterConfig {
        if (count < 1 || count > MAX_SHARDS) {
            throw new IllegalArgumentException("Invalid value " + count + " for shard count: must be 1 to " + MAX_SHARDS);
        }
        if (firstServerId < 1 || firstServerId + count > 0xFFFF_FFFFL) {
            throw new IllegalArgumentException("Invalid value " + firstServerId + " for firstServerId: server ids are 1 to 2^32-1");
        }
        serverOptions = List.copyOf(serverOptions);
    }

    /** Two embedded MariaDB shards under {@code target/shards} (or {@code tributary.shards.dir}). */
    public static ShardClusterConfig defaults() {
        return new ShardClusterConfig(DEFAULT_SHARDS, ShardFlavor.MARIADB_10_11,
                Path.of(System.getProperty("tributary.shards.dir", "target/shards")).toAbsolutePath(),
                Duration.ofSeconds(60), 101, List.of());
    }

    public ShardClusterConfig withCount(int n) {
        return new ShardClusterConfig(n, flavor, baseDir, startTimeout, firstServerId, serverOptions);
    }

    public ShardClusterConfig withFlavor(ShardFlavor f) {
        return new ShardClusterConfig(count, f, baseDir, startTimeout, firstServerId, serverOptions);
    }

    public ShardClusterConfig withBaseDir(Path dir) {
        return new ShardClusterConfig(count, flavor, dir, startTimeout, firstServerId, serverOptions);
    }

    public ShardClusterConfig withServerOptions(List<String> options) {
        return new ShardClusterConfig(count, flavor, baseDir, startTimeout, firstServerId, options);
    }
}
