package io.tributary.storage.binlog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tributary.core.config.ConfigurationException;
import io.tributary.core.event.BinlogFlavor;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class BinlogConfigTest {

    @Test
    void shouldApplyTheDocumentedDefaults() {
        BinlogConfig c = BinlogConfig.defaults(Path.of("/var/lib/tributary/binlog"));
        assertThat(c.flavor()).isEqualTo(BinlogFlavor.MYSQL);
        assertThat(c.fileSizeBytes()).isEqualTo(500L << 20);
        assertThat(c.sync()).isEqualTo(SyncPolicy.COMMIT);
        assertThat(c.syncInterval()).isEqualTo(Duration.ofMillis(10));
        assertThat(c.retentionBytes()).isZero();
        assertThat(c.retentionTime()).isEqualTo(Duration.ofDays(7));
        assertThat(c.serverId()).isEqualTo(1);
    }

    @Test
    void shouldParseUnitsAndFlavors() {
        BinlogConfig c = BinlogConfig.parse(Map.of("binlog.dir", "/tmp/b", "binlog.flavor", "MariaDB",
                "binlog.file.size", "1 MB", "binlog.sync", "interval", "binlog.sync.interval", "PT0.05S",
                "binlog.retention.size", "2GB", "binlog.retention.time", "12h", "binlog.domain.id", "7"));
        assertThat(c.flavor()).isEqualTo(BinlogFlavor.MARIADB);
        assertThat(c.fileSizeBytes()).isEqualTo(1 << 20);
        assertThat(c.syncInterval()).isEqualTo(Duration.ofMillis(50));
        assertThat(c.retentionBytes()).isEqualTo(2L << 30);
        assertThat(c.retentionTime()).isEqualTo(Duration.ofHours(12));
        assertThat(c.domainId()).isEqualTo(7);
    }

    @Test
    void shouldReportEveryInvalidValueAtOnce() {
        assertThatThrownBy(() -> BinlogConfig.parse(Map.of("binlog.flavor", "oracle", "binlog.file.size", "100",
                "binlog.sync", "always", "binlog.sync.interval", "soon", "binlog.server.id", "0",
                "binlog.retention.size", "lots")))
                .isInstanceOfSatisfying(ConfigurationException.class, e -> assertThat(e.problems()).containsExactly(
                        "Invalid value null for configuration binlog.dir: required",
                        "Invalid value oracle for configuration binlog.flavor: must be mysql or mariadb",
                        "Invalid value always for configuration binlog.sync: must be commit, interval or none",
                        "Invalid value soon for configuration binlog.sync.interval: not a duration (e.g. 10ms, 30s, 5m, 12h, 7d, PT10S)",
                        "Invalid value lots for configuration binlog.retention.size: not a size (e.g. 1048576, 512KB, 500MB, 1GB)",
                        "Invalid value 100 for configuration binlog.file.size: must be 4096 to 4227858432 bytes (log_pos is 32 bits)",
                        "Invalid value 0 for configuration binlog.server.id: must be 1 to 4294967295"));
    }

    @Test
    void shouldDeriveTheServerUuidFromTheServerIdUnlessItIsSet() {
        BinlogConfig one = BinlogConfig.parse(Map.of("binlog.dir", "/tmp/a", "binlog.server.id", "7"));
        BinlogConfig twin = BinlogConfig.parse(Map.of("binlog.dir", "/tmp/b", "binlog.server.id", "7"));
        BinlogConfig other = BinlogConfig.parse(Map.of("binlog.dir", "/tmp/a", "binlog.server.id", "8"));
        assertThat(one.serverUuid()).isNull();
        assertThat(one.effectiveServerUuid()).isEqualTo(twin.effectiveServerUuid())
                .isNotEqualTo(other.effectiveServerUuid());
        assertThat(one.effectiveServerUuid().version()).isEqualTo(3);
        BinlogConfig set = BinlogConfig.parse(Map.of("binlog.dir", "/tmp/a", "binlog.server.id", "7",
                "binlog.server.uuid", "3E11FA47-71CA-11E1-9E33-C80AA9429562"));
        assertThat(set.effectiveServerUuid()).hasToString("3e11fa47-71ca-11e1-9e33-c80aa9429562");
    }

    @Test
    void shouldRefuseAServerUuidThatIsNotOne() {
        assertThatThrownBy(() -> BinlogConfig.parse(Map.of("binlog.dir", "/tmp/a", "binlog.server.uuid", "1-2-3-4-5")))
                .isInstanceOfSatisfying(ConfigurationException.class, e -> assertThat(e.problems()).containsExactly(
                        "Invalid value 1-2-3-4-5 for configuration binlog.server.uuid: not a UUID (32 hexadecimal digits"
                                + " as 8-4-4-4-12, e.g. 3e11fa47-71ca-11e1-9e33-c80aa9429562)"));
        assertThatThrownBy(() -> BinlogConfig.parse(Map.of("binlog.dir", "/tmp/a",
                "binlog.server.uuid", "00000000-0000-0000-0000-000000000000")))
                .hasMessageContaining("binlog.server.uuid: must not be the nil UUID");
    }
}
