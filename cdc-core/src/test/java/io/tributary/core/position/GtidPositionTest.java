package io.tributary.core.position;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tributary.core.packet.ComBinlogDumpGtid;
import io.tributary.core.reader.ShardReaderConfig;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class GtidPositionTest {
    private static final String A = "3e11fa47-71ca-11e1-9e33-c80aa9429562";
    private static final String B = "4d22fa47-71ca-11e1-9e33-c80aa9429562";

    @Test
    void mysqlGtidSetMergesAdjacentTransactionsAndPrintsLikeGtidExecuted() {
        MySqlGtidSet.Builder building = MySqlGtidSet.builder(B + ":1-3,\n" + A + ":1-5:7");
        building.add(UUID.fromString(A), 6).add(UUID.fromString(A), 9).add(UUID.fromString(B), 4);
        assertThat(building).hasToString(A + ":1-7:9," + B + ":1-4");
        MySqlGtidSet set = building.build();
        assertThat(set).hasToString(A + ":1-7:9," + B + ":1-4");
        assertThat(set.contains(UUID.fromString(A), 8)).isFalse();
        assertThat(set.toSids()).containsExactly(
                new ComBinlogDumpGtid.Sid(UUID.fromString(A), List.of(new ComBinlogDumpGtid.Interval(1, 8),
                        new ComBinlogDumpGtid.Interval(9, 10))),
                new ComBinlogDumpGtid.Sid(UUID.fromString(B), List.of(new ComBinlogDumpGtid.Interval(1, 5))));
        assertThat(MySqlGtidSet.parse("")).hasToString("");
    }

    @Test
    void aMysqlGtidSetNeverChangesOnceBuilt() {
        MySqlGtidSet.Builder building = MySqlGtidSet.builder(A + ":1-5");
        MySqlGtidSet built = building.build();
        building.add(UUID.fromString(A), 6);
        assertThat(built).hasToString(A + ":1-5");

        assertThat(MySqlGtidSet.parse(A + ":1-3:4-5")).isEqualTo(built).hasSameHashCodeAs(built);
        assertThat(building.build()).hasToString(A + ":1-6").isNotEqualTo(built);
    }

    @Test
    void mysqlGtidSetTellsTheGaplessPrefixAndTheHighestOfASource() {
        MySqlGtidSet set = MySqlGtidSet.parse(A + ":1-5:7-9," + B + ":2-4");
        assertThat(set.gaplessEnd(UUID.fromString(A))).isEqualTo(5);
        assertThat(set.highest(UUID.fromString(A))).isEqualTo(9);
        assertThat(set.gaplessEnd(UUID.fromString(B))).isZero();
        assertThat(set.highest(UUID.fromString(B))).isEqualTo(4);
        UUID none = UUID.randomUUID();
        assertThat(set.gaplessEnd(none)).isZero();
        assertThat(set.highest(none)).isZero();
    }

    @Test
    void mysqlGtidSetRefusesWhatItCannotRead() {
        assertThatThrownBy(() -> MySqlGtidSet.parse(A + ":tag:1-5"))
                .hasMessage("invalid MySQL GTID set '" + A + ":tag:1-5': interval 'tag' (tagged GTIDs are not supported)");
        assertThatThrownBy(() -> MySqlGtidSet.parse("not-a-uuid:1"))
                .hasMessage("invalid MySQL GTID set 'not-a-uuid:1': 'not-a-uuid' is not a UUID");
        assertThatThrownBy(() -> MySqlGtidSet.parse(A + ":5-3")).hasMessageContaining("interval '5-3'");
    }

    @Test
    void mariaDbPositionKeepsTheLastGtidPerDomain() {
        MariaDbGtidPosition pos = MariaDbGtidPosition.parse("1-102-7, 0-101-42");
        pos.add(0, 103, 43);
        pos.add(2, 101, 1);
        assertThat(pos).hasToString("0-103-43,1-102-7,2-101-1");
        assertThatThrownBy(() -> MariaDbGtidPosition.parse("0-1-2,0-1-3")).hasMessageContaining("domain 0 appears twice");
        assertThatThrownBy(() -> MariaDbGtidPosition.parse("0-1")).hasMessageContaining("'0-1' is not domain-server-sequence");
    }

    @Test
    void configReportsEveryInvalidValueAtOnce() {
        assertThatThrownBy(() -> new ShardReaderConfig("", "h", 0, "u", "p", 0, ShardPosition.latest(), Duration.ofSeconds(-1),
                false, null, Duration.ZERO, 0, 1, ShardReaderConfig.Backoff.DEFAULT))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("Invalid value  for configuration shardName: must not be blank; "
                        + "Invalid value 0 for configuration port: must be 1..65535; "
                        + "Invalid value 0 for configuration serverId: must be 1..4294967295; "
                        + "Invalid value PT-1S for configuration heartbeatPeriod: must be >= 0; "
                        + "Invalid value PT0S for configuration connectTimeout: must be positive; "
                        + "Invalid value 0 for configuration maxBufferedEvents: must be positive");
        ShardReaderConfig ok = ShardReaderConfig.of("s0", "db1", 3306, "cdc", "secret", 9, ShardPosition.at("binlog.000001", 4));
        assertThat(ok.toString()).contains("shard=s0", "cdc@db1:3306", "start=binlog.000001:4").doesNotContain("secret");
    }

    @Test
    void backoffGrowsExponentiallyUpToItsCap() {
        ShardReaderConfig.Backoff b = new ShardReaderConfig.Backoff(Duration.ofMillis(100), Duration.ofSeconds(1), 2.0, 0);
        assertThat(List.of(b.delay(1), b.delay(2), b.delay(4), b.delay(5), b.delay(50))).containsExactly(Duration.ofMillis(100),
                Duration.ofMillis(200), Duration.ofMillis(800), Duration.ofSeconds(1), Duration.ofSeconds(1));
    }

    @Test
    void positionsPrintTheirProvenance() {
        assertThat(ShardPosition.at("mariadb-bin.000003", 1234)).hasToString("mariadb-bin.000003:1234");
        assertThat(ShardPosition.ofGtidSet("0-1-5")).hasToString("? gtid=[0-1-5]");
        assertThat(ShardPosition.latest()).hasToString("latest");
    }
}
