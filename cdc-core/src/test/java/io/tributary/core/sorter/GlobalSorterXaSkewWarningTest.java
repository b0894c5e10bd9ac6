package io.tributary.core.sorter;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.tributary.core.event.XaXid;
import io.tributary.core.position.ShardCheckpoint;
import io.tributary.core.position.ShardPosition;
import io.tributary.core.sorter.ShardUnit.Kind;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * The warning about a branch prepared in the heartbeat window after its transaction's first commit. The quickstart's
 * sample load (a fresh gtrid per XA transaction, a branch per shard, all prepared before any commits) meets that
 * case every few seconds: the heartbeat reaches one shard before the other, so a branch prepared before the commit
 * on another shard lands in the next window on its own shard. With a gtrid used once there is nothing ambiguous and
 * nothing to say; with a gtrid used again the branch may have been a new use, and that is said.
 */
class GlobalSorterXaSkewWarningTest {

    private final Logger sorterLog = (Logger) LoggerFactory.getLogger(GlobalSorter.class);
    private final ListAppender<ILoggingEvent> logged = new ListAppender<>();

    @BeforeEach
    void capture() {
        logged.start();
        sorterLog.addAppender(logged);
    }

    @AfterEach
    void release() {
        sorterLog.detachAppender(logged);
    }

    private List<String> warnings() {
        return logged.list.stream().filter(e -> e.getLevel() == Level.WARN).map(ILoggingEvent::getFormattedMessage)
                .toList();
    }

    private static XaXid xid(String gtrid, String bqual) {
        return new XaXid(1, gtrid.getBytes(StandardCharsets.US_ASCII), bqual.getBytes(StandardCharsets.US_ASCII));
    }

    /** One shard's binlog, written in order. */
    private static final class Shard {
        final int index;
        final List<ShardUnit<String>> units = new ArrayList<>();
        long seq;

        Shard(int index) {
            this.index = index;
        }

        Shard unit(Kind kind, XaXid xid, long hb, long ts, String rows) {
            seq += 100;
            units.add(new ShardUnit<>(index, seq, kind, ts, xid, hb, "bin.000001:" + seq,
                    ShardPosition.at("bin.000001", seq), ShardPosition.at("bin.000001", seq + 50), rows));
            return this;
        }

        Shard prepare(XaXid xid, long ts) {
            return unit(Kind.XA_PREPARE, xid, 0, ts, "shard " + index + " " + xid.text());
        }

        Shard commit(XaXid xid, long ts) {
            return unit(Kind.XA_COMMIT, xid, 0, ts, null);
        }

        Shard beat(long value) {
            return unit(Kind.HEARTBEAT, null, value, 0, null);
        }
    }

    /** The two shards read in turns; each transaction written, as its branches' rows. */
    private static List<List<String>> sort(Shard s0, Shard s1) {
        GlobalSorter<String> sorter = new GlobalSorter<>(List.of(ShardCheckpoint.at("s0", ShardPosition.at("bin.000001", 4)),
                ShardCheckpoint.at("s1", ShardPosition.at("bin.000001", 4))), Duration.ofSeconds(60));
        List<List<String>> written = new ArrayList<>();
        for (int i = 0; i < Math.max(s0.units.size(), s1.units.size()); i++) {
            for (Shard s : List.of(s0, s1)) {
                if (i < s.units.size()) {
                    sorter.offer(s.units.get(i));
                }
            }
            for (Emission<String> e : sorter.drain()) {
                if (e instanceof Emission.Distributed<String> d) {
                    written.add(d.branches().stream().map(ShardUnit::payload).toList());
                } else if (e instanceof Emission.Single<String> single) {
                    written.add(List.of(single.transaction().payload()));
                }
            }
        }
        assertThat(sorter.waiting()).as("units left waiting").isZero();
        return written;
    }

    /**
     * One XA transaction of the sample load under skew: prepared on shard 0, then on shard 1 just after beat
     * {@code beat} reached shard 1, committed on shard 0 before that beat reached shard 0, then on shard 1.
     */
    private static void skewedTwoPhaseCommit(Shard s0, Shard s1, String gtrid, long beat, long ts) {
        XaXid b0 = xid(gtrid, "branch-0");
        XaXid b1 = xid(gtrid, "branch-1");
        s0.prepare(b0, ts);
        s1.beat(beat).prepare(b1, ts + 1_000);
        s0.commit(b0, ts + 2_000).beat(beat);
        s1.commit(b1, ts + 3_000);
    }

    @Test
    void shouldNotWarnAboutTheSampleLoadsFreshGtridsPreparedAcrossAHeartbeat() {
        Shard s0 = new Shard(0).beat(100);
        Shard s1 = new Shard(1).beat(100);
        List<List<String>> expected = new ArrayList<>();
        for (int t = 1; t <= 5; t++) {
            String gtrid = "tx-" + (t * 10);
            skewedTwoPhaseCommit(s0, s1, gtrid, 100 + 100L * t, t * 1_000_000L);
            expected.add(List.of("shard 0 '" + gtrid + "','branch-0',1", "shard 1 '" + gtrid + "','branch-1',1"));
        }
        for (long b = 700; b <= 900; b += 100) {
            s0.beat(b);
            s1.beat(b);
        }

        assertThat(sort(s0, s1)).containsExactlyElementsOf(expected);
        assertThat(warnings()).isEmpty();
    }

    @Test
    void shouldWarnWhenAGtridThatIsUsedAgainTakesABranchPreparedAfterItsCommit() {
        // the application uses the gtrid 'order-7' again and again; its second use meets the skewed case, where the
        // late branch may as well be a third use started right after the commit on shard 0
        Shard s0 = new Shard(0).beat(100);
        Shard s1 = new Shard(1).beat(100);
        XaXid g0 = xid("order-7", "branch-0");
        XaXid g1 = xid("order-7", "branch-1");
        s0.prepare(g0, 1_000_000);
        s1.prepare(g1, 1_001_000);
        s0.commit(g0, 1_002_000);
        s1.commit(g1, 1_003_000);
        s0.beat(200).beat(300);
        s1.beat(200).beat(300);
        skewedTwoPhaseCommit(s0, s1, "order-7", 400, 3_000_000);
        for (long b = 500; b <= 700; b += 100) {
            s0.beat(b);
            s1.beat(b);
        }

        assertThat(sort(s0, s1)).hasSize(2);
        assertThat(warnings()).singleElement().asString().startsWith("XA transaction 'order-7': branches on shards [1]"
                + " were prepared in the heartbeat window after a commit of it on shards [0, 1], and the xid is used"
                + " more than once");
    }

    @Test
    void shouldSayItOnceTheGtridIsUsedAgainAfterAnAmbiguousUse() {
        Shard s0 = new Shard(0).beat(100);
        Shard s1 = new Shard(1).beat(100);
        skewedTwoPhaseCommit(s0, s1, "order-7", 200, 1_000_000);
        for (long b = 300; b <= 500; b += 100) {
            s0.beat(b);
            s1.beat(b);
        }
        XaXid g0 = xid("order-7", "branch-0");
        s0.prepare(g0, 5_000_000).commit(g0, 5_001_000);
        for (long b = 600; b <= 800; b += 100) {
            s0.beat(b);
            s1.beat(b);
        }

        assertThat(sort(s0, s1)).hasSize(2);
        assertThat(warnings()).singleElement().asString().isEqualTo("XA transaction 'order-7' is used again: an earlier"
                + " use of it took branches on shards [1] prepared in the heartbeat window after its first commit; if"
                + " they belonged to another use of the xid (started within a heartbeat interval of that commit) they"
                + " were written with it");
    }

    @Test
    void shouldPrintAnUnprintableGtridInHex() {
        assertThat(ShardUnit.gtridText("1:74782d3130")).isEqualTo("'tx-10'");
        assertThat(ShardUnit.gtridText("1:00ff")).isEqualTo("X'00ff'");
        assertThat(ShardUnit.gtridText("7:6f")).isEqualTo("'o' (format 7)");
        assertThat(xid("it's", "").text()).isEqualTo("'it''s','',1");
    }
}
