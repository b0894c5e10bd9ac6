package io.tributary.test.shard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import io.tributary.test.junit.WithShards;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.platform.testkit.engine.EngineTestKit;
import org.junit.platform.testkit.engine.Events;

/** Starting, stopping and restarting shards leaves nothing behind and keeps what clients rely on. */
class ShardClusterLifecycleIT {

    @Test
    void shouldStartAndStopFourShardsWithin30SecondsLeavingNoProcessPortOrDirectoryBehind() throws SQLException {
        long started = System.nanoTime();
        ShardCluster cluster = ShardCluster.start(ShardClusterConfig.defaults().withCount(4));
        List<Long> pids;
        List<Integer> ports;
        try {
            pids = cluster.shards().stream().map(s -> s.pid().orElseThrow()).toList();
            ports = cluster.infos().stream().map(ShardInfo::port).toList();
            assertThat(ports).doesNotHaveDuplicates().doesNotContain(3306);
            for (ShardInfo info : cluster.infos()) {
                try (Connection c = info.openReplConnection()) {
                    assertThat(c.isValid(2)).as("%s accepts the replication account", info).isTrue();
                }
            }
        } finally {
            cluster.close();
        }
        Duration elapsed = Duration.ofNanos(System.nanoTime() - started);

        assertThat(elapsed).as("start and stop of 4 shards").isLessThan(Duration.ofSeconds(30));
        assertThat(pids).as("server processes after close").allSatisfy(pid ->
                assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)).isFalse());
        assertThat(ports).as("ports after close").allSatisfy(port -> assertThat(canBind(port)).isTrue());
        assertThat(cluster.directoryRemoved()).as("cluster directory %s removed", cluster.directory()).isTrue();
    }

    @Test
    void shouldRestartAStoppedShardOnTheSamePortWithItsDataAndSurviveAKill() throws SQLException {
        try (ShardCluster cluster = ShardCluster.start(ShardClusterConfig.defaults().withCount(1))) {
            Shard shard = cluster.shard(0);
            int port = shard.info().port();
            execute(shard.info(), "CREATE DATABASE keep", "CREATE TABLE keep.t (id INT PRIMARY KEY)",
                    "INSERT INTO keep.t VALUES (1)");

            shard.stop(Duration.ofSeconds(30));
            assertThat(shard.isRunning()).isFalse();
            assertThat(canBind(port)).as("port %s free while stopped", port).isTrue();

            shard.start();
            assertThat(shard.info().port()).isEqualTo(port);
            execute(shard.info(), "INSERT INTO keep.t VALUES (2)");

            long pid = shard.pid().orElseThrow();
            shard.kill();
            assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)).isFalse();
            shard.start();
            assertThat(count(shard.info(), "SELECT COUNT(*) FROM keep.t")).isEqualTo(2);
        }
    }

    @Test
    void shouldRefuseAShardCountOutsideOneToEight() {
        assertThatThrownBy(() -> ShardClusterConfig.defaults().withCount(9))
                .hasMessage("Invalid value 9 for shard count: must be 1 to 8");
        assertThatThrownBy(() -> ShardClusterConfig.defaults().withCount(0))
                .hasMessage("Invalid value 0 for shard count: must be 1 to 8");
    }

    @Test
    void shouldStopTheShardsOfATestClassWhoseTestFails() {
        FailingTestWithShards.pids.clear();
        Events tests = EngineTestKit.engine("junit-jupiter")
                .configurationParameter("tributary.testkit", "true")
                .selectors(selectClass(FailingTestWithShards.class))
                .execute().testEvents();

        tests.assertStatistics(stats -> stats.started(1).failed(1));
        assertThat(FailingTestWithShards.pids).hasSize(2).allSatisfy(pid ->
                assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false))
                        .as("pid %s after the failing class ended", pid).isFalse());
    }

    /** Run only through the test kit above: a test that fails while its shards run. */
    @WithShards(count = 2)
    @org.junit.jupiter.api.condition.EnabledIf("enabledInTestKit")
    static class FailingTestWithShards {
        static final List<Long> pids = new CopyOnWriteArrayList<>();

        static boolean enabledInTestKit(org.junit.jupiter.api.extension.ExtensionContext context) {
            return context.getConfigurationParameter("tributary.testkit").isPresent();
        }

        @Test
        void failsWhileShardsRun(ShardCluster cluster) {
            cluster.shards().forEach(s -> pids.add(s.pid().orElseThrow()));
            throw new AssertionError("deliberate failure");
        }
    }

    private static boolean canBind(int port) {
        try (ServerSocket s = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private static void execute(ShardInfo shard, String... sql) throws SQLException {
        try (Connection c = shard.openAdminConnection(); Statement s = c.createStatement()) {
            for (String q : sql) {
                s.execute(q);
            }
        }
    }

    private static long count(ShardInfo shard, String sql) throws SQLException {
        try (Connection c = shard.openAdminConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
