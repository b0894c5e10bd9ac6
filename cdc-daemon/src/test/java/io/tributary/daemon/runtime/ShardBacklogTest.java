package io.tributary.daemon.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.tributary.core.position.ShardPosition;
import io.tributary.daemon.runtime.ShardBacklog.BinlogFile;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import org.junit.jupiter.api.Test;

/** How far behind a shard the daemon is, from the shard's binlog list and the reader's position. */
class ShardBacklogTest {

    private static final List<BinlogFile> FILES = List.of(new BinlogFile("mariadb-bin.000007", 1_000),
            new BinlogFile("mariadb-bin.000008", 5_000), new BinlogFile("mariadb-bin.000009", 300));

    @Test
    void bytesBehindAreTheRestOfTheFileOfTheDurablePointAndEveryLaterFile() {
        assertThat(ShardBacklog.bytesBehind(FILES, ShardPosition.at("mariadb-bin.000008", 1_200)))
                .isEqualTo(3_800 + 300);
        assertThat(ShardBacklog.bytesBehind(FILES, ShardPosition.at("mariadb-bin.000007", 4))).isEqualTo(996 + 5_300);
        assertThat(ShardBacklog.bytesBehind(FILES, ShardPosition.at("mariadb-bin.000009", 300))).isZero();
    }

    @Test
    void aPositionPastTheSizeReadAMomentEarlierHasNothingLeft() {
        assertThat(ShardBacklog.bytesBehind(FILES, ShardPosition.at("mariadb-bin.000009", 420))).isZero();
    }

    @Test
    void aPositionWithoutAListedFileIsUnknown() {
        assertThat(ShardBacklog.bytesBehind(FILES, ShardPosition.at("mariadb-bin.000003", 4))).isEqualTo(-1);
        assertThat(ShardBacklog.bytesBehind(FILES, ShardPosition.at("(checkpoint)", 4))).isEqualTo(-1);
        assertThat(ShardBacklog.bytesBehind(FILES, null)).isEqualTo(-1);
    }

    @Test
    void aShardWithBytesToReadAndCommitsFarBehindIsCatchingUpWithAnEtaFromHowFastTheBytesFall() {
        Deque<long[]> history = new ArrayDeque<>();
        long t0 = 1_700_000_000_000L;
        ShardBacklog.Behind first = ShardBacklog.behind("shard-0", 100_000_000, t0 - 60_000, t0, history, null);
        assertThat(first.catchingUp()).isTrue();
        assertThat(first.seconds()).isEqualTo(60.0);
        assertThat(first.etaSeconds()).as("no trend after one poll").isNaN();

        ShardBacklog.Behind second = ShardBacklog.behind("shard-0", 80_000_000, t0 - 50_000, t0 + 2_000, history, null);
        assertThat(second.catchingUp()).isTrue();
        assertThat(second.seconds()).isEqualTo(52.0);
        assertThat(second.etaSeconds()).as("80 MB left, falling at 10 MB/s").isCloseTo(8.0, within(1e-9));
    }

    @Test
    void theEtaIsTakenOverTheLastWindowOfPollsOnly() {
        Deque<long[]> history = new ArrayDeque<>();
        long t = 0;
        long bytes = 1_000_000_000L;
        for (int i = 0; i < ShardBacklog.WINDOW + 10; i++) {
            // the first polls do not fall at all; the last WINDOW fall by 1 MB per 2 s poll
            long b = i < 10 ? bytes : bytes - (i - 9) * 1_000_000L;
            ShardBacklog.behind("shard-0", b, 1, t, history, null);
            t += 2_000;
        }
        ShardBacklog.Behind last = ShardBacklog.behind("shard-0", bytes - 16_000_000L, 1, t, history, null);
        assertThat(history).hasSize(ShardBacklog.WINDOW);
        assertThat(last.etaSeconds()).isCloseTo((bytes - 16_000_000L) / 500_000.0, within(1e-6));
    }

    @Test
    void bytesThatDoNotFallGiveNoEta() {
        Deque<long[]> history = new ArrayDeque<>();
        ShardBacklog.behind("shard-0", 5_000_000, 1, 10_000, history, null);
        ShardBacklog.Behind growing = ShardBacklog.behind("shard-0", 6_000_000, 1, 12_000, history, null);
        assertThat(growing.catchingUp()).isTrue();
        assertThat(growing.etaSeconds()).isNaN();
    }

    @Test
    void aShardOnlyMomentsBehindIsNotCatchingUp() {
        ShardBacklog.Behind b = ShardBacklog.behind("shard-1", 12_000, 99_700, 100_000, new ArrayDeque<>(), null);
        assertThat(b.catchingUp()).isFalse();
        assertThat(b.seconds()).isCloseTo(0.3, within(1e-9));
    }

    @Test
    void aShardAllInTheGlobalBinlogIsNotBehindHoweverOldItsLastCommit() {
        ShardBacklog.Behind b = ShardBacklog.behind("shard-1", 0, 1_000, 3_600_000, new ArrayDeque<>(), null);
        assertThat(b.catchingUp()).isFalse();
        assertThat(b.seconds()).isZero();
        assertThat(b.etaSeconds()).isZero();
    }

    @Test
    void bytesToReadBeforeTheFirstDurableCommitCountAsCatchingUp() {
        ShardBacklog.Behind b = ShardBacklog.behind("shard-2", 321_000_000, 0, 5_000, new ArrayDeque<>(), null);
        assertThat(b.catchingUp()).isTrue();
        assertThat(b.seconds()).isNaN();
    }

    @Test
    void aShardThatCouldNotBeAskedIsUnknownAndNotCatchingUp() {
        Deque<long[]> history = new ArrayDeque<>();
        ShardBacklog.behind("shard-3", 9_000, 1, 1_000, history, null);
        ShardBacklog.Behind b = ShardBacklog.behind("shard-3", -1, 1, 3_000, history, "Connection refused");
        assertThat(b.bytes()).isEqualTo(-1);
        assertThat(b.catchingUp()).isFalse();
        assertThat(b.error()).isEqualTo("Connection refused");
        assertThat(history).as("a gap starts the trend again").isEmpty();
    }

    @Test
    void theStatusLineNamesTheShardsCatchingUpWithTheirBytesSecondsAndTheEta() {
        List<ShardBacklog.Behind> shards = List.of(
                new ShardBacklog.Behind("shard-0", 126_143_078, 85.2, 40.4, true, null),
                new ShardBacklog.Behind("shard-1", 1_000, 0.2, Double.NaN, false, null),
                new ShardBacklog.Behind("shard-2", 3_250_000, 12.0, 3.0, true, null));
        assertThat(StatusLine.catchingUp(shards, 40.4)).isEqualTo(
                " | CATCHING UP (ETA 40 s): shard-0 120.3 MB, 85 s behind; shard-2 3.1 MB, 12 s behind");
        assertThat(StatusLine.catchingUp(shards.subList(0, 1), Double.NaN)).startsWith(" | CATCHING UP (ETA unknown):");
        assertThat(StatusLine.seconds(4_000)).isEqualTo("66 min 40 s");
        assertThat(StatusLine.seconds(90_000)).isEqualTo("25 h 0 min");
    }
}
