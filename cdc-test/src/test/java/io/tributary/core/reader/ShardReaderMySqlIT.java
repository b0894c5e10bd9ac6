package io.tributary.core.reader;

import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.core.position.ShardPosition;
import io.tributary.test.junit.WithShards;
import io.tributary.test.shard.ShardCluster;
import io.tributary.test.shard.ShardFlavor;
import io.tributary.test.shard.ShardInfo;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The shard reader against MySQL 8.0 (Testcontainers through the harness; skipped with the reason
 * when no Docker engine answers): {@code caching_sha2_password} full authentication with the
 * server's RSA key (no TLS, empty cache after {@code FLUSH PRIVILEGES}), then the fast path, and
 * {@code COM_BINLOG_DUMP_GTID} from a GTID set.
 */
@WithShards(count = 1, flavor = ShardFlavor.MYSQL_8_0)
class ShardReaderMySqlIT {

    private static ShardReaderConfig config(ShardInfo shard, ShardPosition start, long serverId) {
        return new ShardReaderConfig(shard.name(), shard.host(), shard.port(), shard.replUser(), shard.replPassword(),
                serverId, start, Duration.ofSeconds(1), false, null, Duration.ofSeconds(10), 10_000, 64L << 20,
                ShardReaderConfig.Backoff.DEFAULT);
    }

    private static String query(Connection c, String sql) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getString(1);
        }
    }

    @Test
    void shouldAuthenticateWithCachingSha2AndStreamFromAGtidSet(ShardCluster cluster) throws Exception {
        ShardInfo shard = cluster.info(0);
        String uuid;
        String executed;
        try (Connection c = shard.openAdminConnection(); Statement s = c.createStatement()) {
            assertThat(query(c, "SELECT plugin FROM mysql.user WHERE user = '" + shard.replUser() + "'"))
                    .isEqualTo("caching_sha2_password");
            s.execute("FLUSH PRIVILEGES"); // empties the caching_sha2 cache: the first login needs full authentication
            s.execute("CREATE DATABASE reader_mysql_it");
            s.execute("CREATE TABLE reader_mysql_it.t (id INT PRIMARY KEY, v VARCHAR(20))");
            uuid = query(c, "SELECT @@server_uuid");
            executed = query(c, "SELECT @@global.gtid_executed").replace("\n", "");
        }
        long lastGno = MySqlGtidSetLast.of(executed, uuid);
        RecordingSink sink = new RecordingSink();
        List<String> expected = new ArrayList<>();
        try (ShardReader reader = new ShardReader(config(shard, ShardPosition.ofGtidSet(executed), 6001), sink)) {
            reader.start();
            try (Connection c = shard.openAdminConnection(); Statement s = c.createStatement()) {
                for (int i = 0; i < 5; i++) {
                    s.execute("INSERT INTO reader_mysql_it.t VALUES (" + i + ", 'v" + i + "')");
                    expected.add(uuid + ":" + (lastGno + 1 + i));
                }
            }
            Set<String> ours = new HashSet<>(expected);
            List<RecordingSink.Txn> got = sink.await(t -> ours.contains(t.gtid()), expected.size(), 30_000);
            assertThat(got.stream().map(RecordingSink.Txn::gtid).toList()).containsExactlyElementsOf(expected);
            assertThat(got).allSatisfy(t -> assertThat(t.count(RecordingSink.WRITE_ROWS_V2)).isEqualTo(1));
            assertThat(reader.restartPosition().gtidSet()).contains(uuid + ":1-" + (lastGno + 5));
        }
        // the cache now holds the account: the second reader takes the fast path
        RecordingSink second = new RecordingSink();
        try (ShardReader reader = new ShardReader(config(shard, ShardPosition.ofGtidSet(executed), 6002), second)) {
            reader.start();
            Set<String> ours = new HashSet<>(expected);
            assertThat(second.await(t -> ours.contains(t.gtid()), expected.size(), 30_000)).hasSize(expected.size());
        }
    }

    /** The highest transaction number of one UUID in a MySQL GTID set text. */
    private static final class MySqlGtidSetLast {
        static long of(String set, String uuid) {
            for (String part : set.split(",")) {
                String[] f = part.strip().split(":");
                if (f[0].equalsIgnoreCase(uuid)) {
                    String last = f[f.length - 1];
                    return Long.parseLong(last.contains("-") ? last.substring(last.indexOf('-') + 1) : last);
                }
            }
            return 0;
        }
    }
}
