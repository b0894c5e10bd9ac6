package io.tributary.test.shard;

import io.tributary.test.net.FreePorts;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * N real shard servers, started together and stopped together. The tests' and the quickstart's way to
 * get shards:
 * <pre>{@code
 * try (ShardCluster cluster = ShardCluster.start(ShardClusterConfig.defaults().withCount(4))) {
 *     ShardInfo s0 = cluster.info(0);   // host, port, accounts, JDBC URL
 * }
 * }</pre>
 * Each cluster lives in its own directory under the config's base directory; closing it stops exactly
 * the servers it started and removes that directory. Shards start in parallel.
 */
public final class ShardCluster implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(ShardCluster.class);
    private static final DateTimeFormatter RUN_ID = DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss");

    /** Accounts created on every shard. */
    public static final String ADMIN_USER = "admin";
    public static final String ADMIN_PASSWORD = "admin-pass";
    public static final String REPL_USER = "tributary";
    public static final String REPL_PASSWORD = "tributary-pass";

    private final ShardClusterConfig config;
    private final Path directory;
    private final List<Shard> shards;

    private ShardCluster(ShardClusterConfig config, Path directory, List<Shard> shards) {
        this.config = config;
        this.directory = directory;
        this.shards = List.copyOf(shards);
    }

    /** Starts the shards and returns once every one accepts connections; on failure stops those started. */
    public static ShardCluster start(ShardClusterConfig config) {
        if (config.flavor().isMySql() && !MySqlContainerShard.dockerAvailable()) {
            throw new ShardsUnavailableException(MySqlContainerShard.dockerUnavailableReason());
        }
        long started = System.nanoTime();
        Path directory = config.baseDir().resolve("cluster-" + LocalDateTime.now().format(RUN_ID) + "-"
                + Integer.toHexString(ThreadLocalRandom.current().nextInt(0x10000, 0xfffff)));
        List<Shard> shards = new ArrayList<>();
        if (!config.flavor().isMySql()) {
            EmbeddedMariaDbShard.killStale(config.baseDir());
            MariaDbDistribution distribution = MariaDbDistribution.resolve();
            log.info("Starting {} shard(s) with {}", config.count(), distribution.version());
            for (int i = 0; i < config.count(); i++) {
                shards.add(new EmbeddedMariaDbShard(distribution, infoFor(config, i), directory.resolve("shard-" + i),
                        config.serverOptions(), config.startTimeout()));
            }
        } else {
            for (int i = 0; i < config.count(); i++) {
                shards.add(new MySqlContainerShard(infoFor(config, i)));
            }
        }
        ShardCluster cluster = new ShardCluster(config, directory, shards);
        ExecutorService pool = Executors.newFixedThreadPool(config.count(), r -> {
            Thread t = new Thread(r, "shard-starter");
            t.setDaemon(true);
            return t;
        });
        try {
            List<Future<?>> futures = new ArrayList<>();
            for (Shard s : shards) {
                futures.add(pool.submit(s::start));
            }
            for (Future<?> f : futures) {
                f.get();
            }
        } catch (Exception e) {
            cluster.close();
            Throwable cause = e instanceof java.util.concurrent.ExecutionException ? e.getCause() : e;
            if (cause instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            throw new IllegalStateException("could not start " + config.count() + " " + config.flavor() + " shards: "
                    + cause.getMessage(), cause);
        } finally {
            pool.shutdownNow();
        }
        log.info("{} {} shard(s) ready in {} ms: {}", config.count(), config.flavor().description(),
                (System.nanoTime() - started) / 1_000_000, cluster.infos());
        return cluster;
    }

    private static ShardInfo infoFor(ShardClusterConfig config, int i) {
        return new ShardInfo(i, "shard-" + i, config.flavor(), "127.0.0.1", FreePorts.next(),
                config.firstServerId() + i, ADMIN_USER, ADMIN_PASSWORD, REPL_USER, REPL_PASSWORD);
    }

    public ShardClusterConfig config() {
        return config;
    }

    /** The cluster's own directory (one sub-directory per shard). */
    public Path directory() {
        return directory;
    }

    public int size() {
        return shards.size();
    }

    public List<Shard> shards() {
        return shards;
    }

    public Shard shard(int index) {
        return shards.get(index);
    }

    public ShardInfo info(int index) {
        return shards.get(index).info();
    }

    public List<ShardInfo> infos() {
        return shards.stream().map(Shard::info).toList();
    }

    /** Stops every shard (in parallel) and removes the cluster directory. */
    @Override
    public void close() {
        List<Thread> stoppers = new ArrayList<>();
        for (Shard s : shards) {
            Thread t = new Thread(() -> {
                try {
                    s.close();
                } catch (RuntimeException e) {
                    log.warn("could not close {}: {}", s.info(), e.toString());
                }
            }, "shard-stopper-" + s.info().index());
            t.start();
            stoppers.add(t);
        }
        for (Thread t : stoppers) {
            try {
                t.join(Duration.ofSeconds(60).toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        if (!Boolean.getBoolean("tributary.shards.keep")) {
            try {
                MariaDbDistribution.deleteTree(directory);
            } catch (IOException e) {
                log.warn("could not delete {}: {}", directory, e.toString());
            }
        }
    }

    /** Whether every directory this cluster created is gone (after {@link #close()}). */
    public boolean directoryRemoved() {
        return !Files.exists(directory);
    }
}
