package io.tributary.core.sorter;

import io.tributary.core.position.ShardCheckpoint;
import io.tributary.core.position.ShardPosition;
import io.tributary.core.sorter.ShardHistory.Reuse;
import io.tributary.core.sorter.ShardUnit.Kind;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Scratch probe: a dense catch-up (no heartbeats, seconds-only timestamps) fed to the sorter, timed. */
class GlobalSorterCatchUpProbe {

    @Test
    void probe() throws Exception {
        int txns = Integer.getInteger("probe.txns", 20_000);
        ShardHistory g = ShardHistory.generate(Long.getLong("probe.seed", 7), 4, txns, true, true, Boolean.getBoolean("probe.lost"),
                Reuse.valueOf(System.getProperty("probe.reuse", "NONE")), 2_000);
        // drop every heartbeat but the last few (the daemon was down)
        List<List<ShardUnit<String>>> units = new ArrayList<>();
        for (List<ShardUnit<String>> list : g.units) {
            long lastBeat = list.stream().filter(u -> u.kind() == Kind.HEARTBEAT).mapToLong(ShardUnit::heartbeat).max().orElse(0);
            units.add(list.stream().filter(u -> u.kind() != Kind.HEARTBEAT || u.heartbeat() > lastBeat - 500).toList());
        }
        for (int round = 0; round < Integer.getInteger("probe.rounds", 3); round++) {
            List<ShardCheckpoint> start = new ArrayList<>();
            for (int s = 0; s < units.size(); s++) {
                start.add(ShardCheckpoint.at("shard-" + s, ShardPosition.at("bin.000001", 4)));
            }
            GlobalSorter<String> sorter = new GlobalSorter<>(start, Duration.ofSeconds(60));
            java.util.Random r = new java.util.Random(round);
            int[] next = new int[units.size()];
            List<Emission<String>> out = new ArrayList<>();
            long t0 = System.nanoTime();
            java.lang.management.ThreadMXBean mx = java.lang.management.ManagementFactory.getThreadMXBean();
            long cpu0 = mx.getCurrentThreadCpuTime();
            int maxWaiting = 0;
            while (true) {
                // read the shard furthest behind, in chunks, as the pipeline's gate does
                int s = -1;
                int behind = sorter.furthestBehind();
                if (next[behind] < units.get(behind).size()) {
                    s = behind;
                } else {
                    for (int i = 0; i < units.size(); i++) {
                        if (next[i] < units.get(i).size()) {
                            s = i;
                            break;
                        }
                    }
                }
                if (s < 0) {
                    break;
                }
                int chunk = 1 + r.nextInt(64);
                for (int i = 0; i < chunk && next[s] < units.get(s).size(); i++) {
                    sorter.offer(units.get(s).get(next[s]++));
                }
                out.addAll(sorter.drain());
                maxWaiting = Math.max(maxWaiting, sorter.waiting());
            }
            out.addAll(sorter.drain());
            long ms = (System.nanoTime() - t0) / 1_000_000;
            long cpuMs = (mx.getCurrentThreadCpuTime() - cpu0) / 1_000_000;
            List<String> rendered = new ArrayList<>();
            for (Emission<String> e : out) {
                rendered.add(GlobalSorterSimulationTest.render(List.of(e)) + " " + e.checkpoints().stream()
                        .map(c -> c.shard() + "@" + c.resumeFrom() + new java.util.TreeSet<>(c.writtenAfter()) + c.clock()).toList());
            }
            System.out.printf("probe round %d: %d emissions in %d ms, %d ms CPU (%.0f/CPU-s), max waiting %d, hash %08x%n", round,
                    out.size(), ms, cpuMs, out.size() * 1000.0 / Math.max(1, cpuMs), maxWaiting, rendered.hashCode());
            String file = System.getProperty("probe.out");
            if (file != null && round == 0) {
                Files.write(Path.of(file), rendered);
            }
        }
    }
}
