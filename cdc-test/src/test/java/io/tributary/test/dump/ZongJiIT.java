package io.tributary.test.dump;

import io.tributary.test.daemon.DaemonProcess;
import io.tributary.test.junit.WithShards;
import io.tributary.test.shard.ShardCluster;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 16: {@code @vlasky/zongji} (Node.js), unmodified, subscribes to the dump port of the daemon over two live
 * MariaDB shards, on both flavors: by file/position (its default: the file name sent NUL-terminated) and by GTID
 * (MariaDB: a lone NUL as the file name after {@code SET @slave_connect_state}; MySQL: COM_BINLOG_DUMP_GTID from
 * {@code @@gtid_executed}). It must deliver every row change written on the shards, once, under the logical
 * names ({@code shop_0.orders}, {@code shop_1.orders} -> {@code shop.orders}). The two runs share the shards,
 * each with its own database and daemon.
 *
 * <p>Needs {@code node} and {@code npm}; the package is installed into {@code ~/.cache/tributary/npm/zongji}
 * (never into the repository). Without node, npm or a reachable npm registry the test reports itself skipped
 * with the reason.
 */
@WithShards(count = 2)
class ZongJiIT {
    static final String ZONGJI = "@vlasky/zongji@0.9.0";
    private static final Pattern ROW = Pattern.compile(
            "\\{\"op\":\"(\\w+)\",\"schema\":\"([^\"]*)\",\"table\":\"([^\"]*)\",\"row\":\\{\"id\":(\\d+),\"note\":\"([^\"]*)\"");
    private static Path modules;

    @TempDir
    Path dir;

    /** Installs the client where missing; skips the test (with the reason) where it cannot. */
    private static void installZongJi() throws Exception {
        Assumptions.assumeTrue(works("node", "--version"), "node is not installed (.ci/run installs nodejs from Debian)");
        Assumptions.assumeTrue(works("npm", "--version"), "npm is not installed (.ci/run installs npm from Debian)");
        Path cache = Path.of(System.getProperty("user.home"), ".cache", "tributary", "npm", "zongji");
        Files.createDirectories(cache);
        Path installed = cache.resolve("node_modules/@vlasky/zongji/package.json");
        if (!Files.exists(installed) || !Files.readString(installed).contains("\"version\": \"0.9.0\"")) {
            if (!Files.exists(cache.resolve("package.json"))) {
                Files.writeString(cache.resolve("package.json"), "{\"private\": true}\n");
            }
            Path log = Files.createTempFile("npm-install", ".log");
            Process npm = new ProcessBuilder("npm", "install", "--no-audit", "--no-fund", "--no-save",
                    "--fetch-retries=1", "--fetch-timeout=30000", ZONGJI)
                    .directory(cache.toFile()).redirectErrorStream(true).redirectOutput(log.toFile()).start();
            boolean done = npm.waitFor(300, TimeUnit.SECONDS) && npm.exitValue() == 0;
            if (npm.isAlive()) {
                npm.destroyForcibly();
            }
            String out = Files.readString(log);
            Files.delete(log);
            Assumptions.assumeTrue(done, () -> "npm cannot install " + ZONGJI + " into " + cache
                    + " (is the npm registry reachable?): " + String.join("; ", out.lines()
                    .filter(l -> l.startsWith("npm error") && !l.contains("complete log")).limit(3).toList()));
        }
        modules = cache.resolve("node_modules");
    }

    private static boolean works(String... command) {
        try {
            Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
            p.getInputStream().readAllBytes();
            return p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (IOException | InterruptedException e) {
            return false;
        }
    }

    @org.junit.jupiter.params.ParameterizedTest(name = "{0} flavor")
    @org.junit.jupiter.params.provider.ValueSource(strings = {"mariadb", "mysql"})
    void zongJiReadsTheRowsOfLiveShardsByFilePositionAndByGtid(String flavor, ShardCluster shards) throws Exception {
        installZongJi();
        boolean maria = flavor.equals("mariadb");
        String db = "shop" + (maria ? "" : "_my");
        try (DaemonProcess daemon = DaemonProcess.builder(shards.infos(), dir.resolve(flavor)).flavor(flavor)
                .readerIdBlock(maria ? 0 : 1).start()) {
            List<String> expected = new ArrayList<>();
            for (int shard = 0; shard < 2; shard++) {
                try (Connection c = shards.info(shard).openAdminConnection(); Statement st = c.createStatement()) {
                    st.execute("CREATE DATABASE " + db + "_" + shard);
                    st.execute("CREATE TABLE " + db + "_" + shard + ".orders (id INT PRIMARY KEY, note VARCHAR(100), qty INT)");
                    for (int i = 1; i <= 20; i++) {
                        int id = shard * 1000 + i;
                        st.execute("INSERT INTO " + db + "_" + shard + ".orders VALUES (" + id + ", 'order " + id + "', " + i + ")");
                        expected.add("WriteRows " + db + ".orders " + id + " order " + id);
                    }
                    st.execute("UPDATE " + db + "_" + shard + ".orders SET note = CONCAT(note, ' paid') WHERE MOD(id, 1000) % 5 = 0");
                    for (int i = 5; i <= 20; i += 5) {
                        int id = shard * 1000 + i;
                        expected.add("UpdateRows " + db + ".orders " + id + " order " + id + " paid");
                    }
                    st.execute("DELETE FROM " + db + "_" + shard + ".orders WHERE MOD(id, 1000) % 7 = 0");
                    for (int i = 7; i <= 20; i += 7) {
                        int id = shard * 1000 + i;
                        expected.add("DeleteRows " + db + ".orders " + id + " order " + id);
                    }
                }
            }
            List<String> byFile = zongji(daemon, "file", "binlog.000001", expected.size(), db);
            assertThat(byFile).as("every row change once, under the logical names")
                    .containsExactlyInAnyOrderElementsOf(expected);

            String gtidPos;
            try (Connection c = DriverManager.getConnection(maria ? "jdbc:mariadb://127.0.0.1:" + daemon.dumpPort() + "/"
                    : "jdbc:mysql://127.0.0.1:" + daemon.dumpPort() + "/?sslMode=DISABLED&allowPublicKeyRetrieval=true",
                    DaemonProcess.DUMP_USER, DaemonProcess.DUMP_PASSWORD);
                 Statement st = c.createStatement();
                 ResultSet rs = st.executeQuery(maria ? "SELECT @@global.gtid_binlog_pos" : "SELECT @@global.gtid_executed")) {
                assertThat(rs.next()).isTrue();
                gtidPos = rs.getString(1);
            }
            assertThat(gtidPos).matches(maria ? "\\d+-\\d+-\\d+" : "[0-9a-f-]{36}:1-\\d+");
            List<String> later = new ArrayList<>();
            for (int shard = 0; shard < 2; shard++) {
                try (Connection c = shards.info(shard).openAdminConnection(); Statement st = c.createStatement()) {
                    for (int i = 21; i <= 30; i++) {
                        int id = shard * 1000 + i;
                        st.execute("INSERT INTO " + db + "_" + shard + ".orders VALUES (" + id + ", 'late " + id + "', " + i + ")");
                        later.add("WriteRows " + db + ".orders " + id + " late " + id);
                    }
                }
            }
            List<String> byGtid = zongji(daemon, "gtid", gtidPos, later.size(), db);
            assertThat(byGtid).as("the row changes after GTID position %s, once", gtidPos)
                    .containsExactlyInAnyOrderElementsOf(later);
        }
    }

    /**
     * Runs stream.mjs until it printed {@code rows} row changes of the logical database {@code schema} (and a quiet
     * second); each as "op schema.table id note". Rows under any other name (a physical {@code shop_0}) are not
     * counted, so such a stream times out.
     */
    private List<String> zongji(DaemonProcess daemon, String mode, String start, int rows, String schema)
            throws Exception {
        Path script = script();
        ProcessBuilder pb = new ProcessBuilder("node", script.toString(), "127.0.0.1",
                Integer.toString(daemon.dumpPort()), DaemonProcess.DUMP_USER, DaemonProcess.DUMP_PASSWORD, mode, start,
                Integer.toString(rows), "60000", schema).redirectError(dir.resolve("zongji-" + mode + ".err").toFile());
        pb.environment().put("ZONGJI_MODULES", modules.toString());
        Process node = pb.start();
        String out = new String(node.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(node.waitFor(90, TimeUnit.SECONDS)).as("zongji ended").isTrue();
        String err = Files.readString(dir.resolve("zongji-" + mode + ".err"));
        assertThat(node.exitValue()).as("zongji (%s from %s) exit code; output:%n%s%nstderr:%n%s%ndaemon log:%n%s",
                mode, start, out, err, daemon.tail(30)).isZero();
        List<String> got = new ArrayList<>();
        for (String line : out.lines().toList()) {
            Matcher m = ROW.matcher(line);
            assertThat(m.find()).as("a row change: %s", line).isTrue();
            got.add(m.group(1) + " " + m.group(2) + "." + m.group(3) + " " + m.group(4) + " " + m.group(5));
        }
        return got;
    }

    private static Path script() throws URISyntaxException {
        return Path.of(ZongJiIT.class.getResource("/zongji/stream.mjs").toURI());
    }
}
