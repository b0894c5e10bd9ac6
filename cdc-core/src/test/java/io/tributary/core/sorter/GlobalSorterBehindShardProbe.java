package io.tributary.core.sorter;

import io.tributary.core.event.XaXid;
import io.tributary.core.position.ShardCheckpoint;
import io.tributary.core.position.ShardPosition;
import io.tributary.core.sorter.ShardUnit.Kind;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Scratch probe for the 4-shard catch-up crawl (docs/benchmarks.md, issue 18, "A stall"): shard 0 still holds an
 * older binlog with the previous run's heartbeats, the other shards' histories start after a purge (no heartbeat),
 * a tenth of the transactions are XA over shard 0 and another shard, and the other shards are read well ahead of
 * shard 0. Timed per round; the output's hash shows a change kept the order.
 */
class GlobalSorterBehindShardProbe {

    private static final long T0 = 1_700_000_000_000_000L;

    @Test
    void probe() {
        int perShard = Integer.getInteger("probe.txns", 6_000);
        int older = Integer.getInteger("probe.older", 3_000);
        int ahead = Integer.getInteger("probe.ahead", 3_000);
        List<List<ShardUnit<String>>> units = new ArrayList<>();
        for (int s = 0; s < 4; s++) {
            units.add(new ArrayList<>());
        }
        long[] seq = new long[4];
        // shard 0's older file: heartbeats every 100 transactions, a day before
        long oldTime = T0 - 86_400_000_000L;
        for (int i = 0; i < older; i++) {
            if (i % 100 == 0) {
                units.get(0).add(new ShardUnit<>(0, ++seq[0], Kind.HEARTBEAT, 0, null, oldTime / 1000 + i, "hb" + i,
                        ShardPosition.at("x", 4), ShardPosition.at("x", 4), null));
            }
            units.get(0).add(single(0, ++seq[0], oldTime + i * 1000L, "old" + i));
        }
        // the new history on every shard, one transaction per shard per ms; every tenth on shards 1-3 is XA with
        // a branch on shard 0
        java.util.Random r = new java.util.Random(11);
        for (int i = 0; i < perShard; i++) {
            long t = T0 + i * 1000L;
            for (int s = 1; s < 4; s++) {
                if (r.nextInt(10) == 0) {
                    String gtrid = "x" + s + "-" + i;
                    units.get(s).add(xa(s, ++seq[s], Kind.XA_PREPARE, t, gtrid));
                    units.get(0).add(xa(0, ++seq[0], Kind.XA_PREPARE, t + 1, gtrid));
                    units.get(s).add(xa(s, ++seq[s], Kind.XA_COMMIT, t + 2, gtrid));
                    units.get(0).add(xa(0, ++seq[0], Kind.XA_COMMIT, t + 3, gtrid));
                } else {
                    units.get(s).add(single(s, ++seq[s], t + s, "n" + i));
                }
            }
            units.get(0).add(single(0, ++seq[0], t + 5, "n" + i));
        }
        // the new daemon's first heartbeats close the history on every shard
        for (int beat = 0; beat < 3; beat++) {
            for (int s = 0; s < 4; s++) {
                units.get(s).add(new ShardUnit<>(s, ++seq[s], Kind.HEARTBEAT, 0, null, T0 / 1000 + perShard + 1000 + beat,
                        "hb-new" + beat, ShardPosition.at("x", 4), ShardPosition.at("x", 4), null));
            }
        }
        for (int round = 0; round < Integer.getInteger("probe.rounds", 3); round++) {
            List<ShardCheckpoint> start = new ArrayList<>();
            for (int s = 0; s < 4; s++) {
                start.add(ShardCheckpoint.at("shard-" + s, ShardPosition.at("bin.000001", 4)));
            }
            GlobalSorter<String> sorter = new GlobalSorter<>(start, Duration.ofSeconds(60));
            int[] next = new int[4];
            // shards 1-3 read ahead first, then the one furthest behind in chunks
            for (int s = 1; s < 4; s++) {
                while (next[s] < Math.min(ahead, units.get(s).size())) {
                    sorter.offer(units.get(s).get(next[s]++));
                }
            }
            List<Emission<String>> out = new ArrayList<>(sorter.drain());
            java.lang.management.ThreadMXBean mx = java.lang.management.ManagementFactory.getThreadMXBean();
            long cpu0 = mx.getCurrentThreadCpuTime();
            long longest = 0;
            while (true) {
                int s = sorter.furthestBehind();
                if (next[s] >= units.get(s).size()) {
                    s = -1;
                    for (int i = 0; i < 4; i++) {
                        if (next[i] < units.get(i).size()) {
                            s = i;
                            break;
                        }
                    }
                }
                if (s < 0) {
                    break;
                }
                for (int i = 0; i < 64 && next[s] < units.get(s).size(); i++) {
                    sorter.offer(units.get(s).get(next[s]++));
                }
                long d0 = mx.getCurrentThreadCpuTime();
                out.addAll(sorter.drain());
                longest = Math.max(longest, mx.getCurrentThreadCpuTime() - d0);
                if (Boolean.getBoolean("probe.trace") && round == 0 && (next[0] + next[1] + next[2] + next[3]) / 64 % 50 == 0) {
                    System.out.printf("  read %s, %d written, %d waiting, drain %d ms%n", java.util.Arrays.toString(next),
                            out.size(), sorter.waiting(), (mx.getCurrentThreadCpuTime() - d0) / 1_000_000);
                }
            }
            out.addAll(sorter.drain());
            long cpuMs = (mx.getCurrentThreadCpuTime() - cpu0) / 1_000_000;
            List<String> rendered = new ArrayList<>();
            for (Emission<String> e : out) {
                rendered.addAll(GlobalSorterSimulationTest.render(List.of(e)));
            }
            System.out.printf("behind-shard probe round %d: %d emissions, %d ms CPU, longest drain %d ms, waiting %d,"
                    + " hash %08x%n", round, out.size(), cpuMs, longest / 1_000_000, sorter.waiting(), rendered.hashCode());
        }
    }

    private static ShardUnit<String> single(int shard, long seq, long ts, String key) {
        return new ShardUnit<>(shard, seq, Kind.TRANSACTION, ts, null, 0, key + "@" + shard, ShardPosition.at("x", 4),
                ShardPosition.at("x", 4), null);
    }

    private static ShardUnit<String> xa(int shard, long seq, Kind kind, long ts, String gtrid) {
        XaXid xid = new XaXid(1, gtrid.getBytes(StandardCharsets.US_ASCII), "b".getBytes(StandardCharsets.US_ASCII));
        return new ShardUnit<>(shard, seq, kind, ts, xid, 0, kind + gtrid + "@" + shard, ShardPosition.at("x", 4),
                ShardPosition.at("x", 4), null);
    }
}
