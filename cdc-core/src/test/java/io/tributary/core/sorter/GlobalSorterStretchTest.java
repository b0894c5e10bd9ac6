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
 * Issue 18: history without heartbeats (written while the daemon was down, or before its first start) is ordered by
 * commit timestamps and emitted as it is read, not held until a heartbeat closes the window.
 */
class GlobalSorterStretchTest {

    private static final long T0 = 1_700_000_000_000_000L;

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

    private List<String> infos() {
        return logged.list.stream().filter(e -> e.getLevel() == Level.INFO).map(ILoggingEvent::getFormattedMessage)
                .toList();
    }

    /** One shard's binlog, written in order. */
    private static final class Shard {
        final int index;
        final List<ShardUnit<String>> units = new ArrayList<>();
        long seq;

        Shard(int index) {
            this.index = index;
        }

        Shard unit(Kind kind, XaXid xid, long hb, long ts, String name) {
            seq += 100;
            units.add(new ShardUnit<>(index, seq, kind, ts, xid, hb, name, ShardPosition.at("bin.000001", seq),
                    ShardPosition.at("bin.000001", seq + 50), name));
            return this;
        }

        Shard txn(String name, long ts) {
            return unit(Kind.TRANSACTION, null, 0, ts, name);
        }

        Shard beat(long value) {
            return unit(Kind.HEARTBEAT, null, value, 0, "hb" + value + "@" + index);
        }

        Shard prepare(String gtrid, long ts) {
            return unit(Kind.XA_PREPARE, xid(gtrid), 0, ts, gtrid + "-p" + index);
        }

        Shard commit(String gtrid, long ts) {
            return unit(Kind.XA_COMMIT, xid(gtrid), 0, ts, gtrid + "-c" + index);
        }

        Shard rollback(String gtrid, long ts) {
            return unit(Kind.XA_ROLLBACK, xid(gtrid), 0, ts, gtrid + "-r" + index);
        }

        private XaXid xid(String gtrid) {
            return new XaXid(1, gtrid.getBytes(StandardCharsets.US_ASCII), ("b" + index).getBytes(StandardCharsets.US_ASCII));
        }
    }

    private static GlobalSorter<String> sorter(int shards) {
        List<ShardCheckpoint> start = new ArrayList<>();
        for (int s = 0; s < shards; s++) {
            start.add(ShardCheckpoint.at("s" + s, ShardPosition.at("bin.000001", 4)));
        }
        return new GlobalSorter<>(start, Duration.ofSeconds(60));
    }

    private static List<String> names(List<Emission<String>> out) {
        List<String> names = new ArrayList<>();
        for (Emission<String> e : out) {
            if (e instanceof Emission.Single<String> s) {
                names.add(s.transaction().key());
            } else if (e instanceof Emission.Distributed<String> d) {
                names.add(String.join("+", d.branches().stream().map(ShardUnit::key).toList()));
            }
        }
        return names;
    }

    @Test
    void transactionsWithoutHeartbeatsAreWrittenAsEveryShardReadsPastThem() {
        Shard s0 = new Shard(0);
        Shard s1 = new Shard(1);
        for (int i = 0; i < 100; i++) {
            s0.txn("a" + i, T0 + i * 10_000L);
            s1.txn("b" + i, T0 + i * 10_000L + 5_000);
        }
        GlobalSorter<String> sorter = sorter(2);
        List<String> written = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            sorter.offer(s0.units.get(i));
            sorter.offer(s1.units.get(i));
            written.addAll(names(sorter.drain()));
            // all but what the other shard may still precede: a_i is passed once b_i is read, b_i only by a_(i+1)
            assertThat(written).as("written after reading %d units of each shard", i + 1).hasSize(2 * i + 1);
        }
        List<String> expected = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            expected.add("a" + i);
            expected.add("b" + i);
        }
        assertThat(written).containsExactlyElementsOf(expected.subList(0, 199));
        sorter.offer(s0.beat(1_700_000_002_000L).units.get(100));
        sorter.offer(s1.beat(1_700_000_002_000L).units.get(100));
        assertThat(names(sorter.drain())).containsExactly("b99");
    }

    @Test
    void aShardReadToItsEndPassesNothingUntilItsNextHeartbeatOrEvent() {
        Shard busy = new Shard(0);
        Shard idle = new Shard(1);
        for (int i = 0; i < 5; i++) {
            busy.txn("a" + i, T0 + i * 1_000_000L);
        }
        GlobalSorter<String> sorter = sorter(2);
        busy.units.forEach(sorter::offer);
        assertThat(sorter.drain()).as("the idle shard may still hold an earlier commit").isEmpty();

        sorter.offer(idle.txn("b0", T0 + 2_500_000).units.get(0));
        assertThat(names(sorter.drain())).as("the busy shard has read past b0 (a3)").containsExactly("a0", "a1", "a2", "b0");

        sorter.offer(idle.beat(1_700_000_010_000L).units.get(1));
        assertThat(names(sorter.drain())).as("a heartbeat passes everything before it").containsExactly("a3", "a4");
    }

    @Test
    void xaTransactionsWithoutHeartbeatsAreStitchedAndRollbacksDropped() {
        Shard s0 = new Shard(0);
        Shard s1 = new Shard(1);
        s0.prepare("x1", T0).prepare("x2", T0 + 1_000).commit("x1", T0 + 10_000).rollback("x2", T0 + 11_000);
        s1.prepare("x1", T0 + 2_000).prepare("x2", T0 + 3_000).txn("b0", T0 + 4_000).commit("x1", T0 + 12_000)
                .rollback("x2", T0 + 13_000);
        for (int i = 1; i <= 30; i++) {
            s0.txn("a" + i, T0 + 100_000L * i);
            s1.txn("b" + i, T0 + 100_000L * i + 50_000);
        }
        GlobalSorter<String> sorter = sorter(2);
        List<String> written = new ArrayList<>();
        for (int i = 0; i < s0.units.size(); i++) {
            sorter.offer(s0.units.get(i));
            sorter.offer(s1.units.get(i));
            written.addAll(names(sorter.drain()));
        }
        // the XA use is fixed once both shards passed its first commit by the clock skew allowance (1 s): a10, b10
        assertThat(written).startsWith("b0", "x1-p0+x1-p1", "a1", "b1");
        assertThat(written).as("written before any heartbeat").hasSizeGreaterThan(40).doesNotContain("x2-p0+x2-p1");
        assertThat(String.join(",", written)).doesNotContain("x2");
    }

    @Test
    void aStretchIsLoggedOnceWhereItBeganAndWhereItEnded() {
        Shard s0 = new Shard(0).beat(1_700_000_000_000L);
        Shard s1 = new Shard(1).beat(1_700_000_000_000L);
        for (int i = 0; i < 50; i++) {
            s0.txn("a" + i, T0 + 100_000L * i);
            s1.txn("b" + i, T0 + 100_000L * i + 50_000);
        }
        s0.beat(1_700_000_009_000L);
        s1.beat(1_700_000_009_000L);
        GlobalSorter<String> sorter = sorter(2);
        for (int i = 0; i < s0.units.size(); i++) {
            sorter.offer(s0.units.get(i));
            sorter.offer(s1.units.get(i));
            sorter.drain();
        }
        assertThat(sorter.waiting()).isZero();
        assertThat(infos()).hasSize(2);
        assertThat(infos().get(0)).contains("after heartbeat 1700000000000", "ordering by commit timestamps",
                "shard s0 a0 at bin.000001:200");
        // b49, the last, is passed by no later commit: the closing heartbeat orders it
        assertThat(infos().get(1)).contains("ended (heartbeat 1700000009000 closes it)", "99 transactions",
                "from shard s0 a0", "to shard s0 a49");
    }

    @Test
    void aShardWhoseBinlogStillHoldsHeartbeatsTheOthersDoNotHoldDoesNotWaitForTheNextHeartbeat() {
        // shard 0's binlog still holds an earlier daemon's heartbeats, an hour old; shard 1's were purged with its older
        // files. Then 30 s of history without heartbeats on both, XA over both shards every tenth transaction.
        Shard s0 = new Shard(0).beat(T0 / 1000 - 3_600_000).txn("old", T0 - 3_599_000_000L);
        Shard s1 = new Shard(1);
        for (int i = 0; i < 300; i++) {
            long t = T0 + 100_000L * i;
            if (i % 10 == 5) {
                s1.prepare("x" + i, t).commit("x" + i, t + 2_000);
                s0.prepare("x" + i, t + 1_000).commit("x" + i, t + 3_000);
            } else {
                s0.txn("a" + i, t);
                s1.txn("b" + i, t + 50_000);
            }
        }
        GlobalSorter<String> sorter = sorter(2);
        List<String> written = new ArrayList<>();
        for (int i = 0; i < Math.max(s0.units.size(), s1.units.size()); i++) {
            if (i < s0.units.size()) {
                sorter.offer(s0.units.get(i));
            }
            if (i < s1.units.size()) {
                sorter.offer(s1.units.get(i));
            }
            written.addAll(names(sorter.drain()));
        }
        // the old transaction first; then, once 10 s of commit time separate the shards' windows from shard 0's old
        // heartbeat, in commit time order, as read: everything but the last second's worth waits for no heartbeat
        assertThat(written.get(0)).isEqualTo("old");
        assertThat(written).as("written before any new heartbeat").hasSizeGreaterThan(250);
        List<String> expected = new ArrayList<>();
        expected.add("old");
        for (int i = 0; i < 300; i++) {
            if (i % 10 == 5) {
                expected.add("x" + i + "-p0+x" + i + "-p1");
            } else {
                expected.add("a" + i);
                expected.add("b" + i);
            }
        }
        assertThat(written).containsExactlyElementsOf(expected.subList(0, written.size()));
        assertThat(infos()).as("one stretch, said once").hasSize(1);
        assertThat(infos().get(0)).contains("ordering by commit timestamps");
    }
}
