package io.tributary.test.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.tributary.test.daemon.DaemonProcess;
import io.tributary.test.deploy.HaproxyFront;
import io.tributary.test.junit.WithShards;
import io.tributary.test.load.OltpWriteOnlyLoad;
import io.tributary.test.net.FreePorts;
import io.tributary.test.shard.ShardCluster;
import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Failover of a live subscriber between twins, end to end (issue 20): a real MariaDB replica
 * ({@code MASTER_USE_GTID=slave_pos}, {@code --log-slave-updates} so that its own binlog records what it applied, in
 * order, under the GTIDs it received) streams the global binlog while 4 shards take an {@code oltp_write_only} load
 * (XA over 2-4 shards included) and an {@link AuditLoad} whose rows name their shard, per-shard sequence and XA;
 * every {@link #LARGE_EVERY} one of its transactions is large (4 MiB a shard, alternately single-shard and XA over
 * 2-3 shards), above the twins' {@code storage.txnPersistThreshold} (2MB), which sends it to the spill store (the
 * test does not observe that: the daemon has gauges for it, no counter). Both twins write heartbeats
 * whenever they run. Beside the replica, {@code mariadb-binlog --read-from-remote-server --stop-never} reads the
 * global binlog through HAProxy the whole time, restarted after each kill from the file and position of the last
 * transaction it began ({@link RemoteBinlogReader}), on whichever twin HAProxy then leads to.
 * <ol>
 * <li><b>Through the front door.</b> The replica follows HAProxy, run with deploy/haproxy/haproxy.cfg (only its
 * addresses changed), and so streams from twin A. Twin A is killed with {@code kill -9}; HAProxy marks it down and
 * the replica's own reconnection lands on twin B, by GTID, and goes on. Twin A stays down.</li>
 * <li><b>To a twin behind, by GTID directly.</b> Twin B is killed with {@code kill -9} and twin A, down for the whole
 * first phase and so behind, is started again; the replica is moved by hand to twin A's dump port
 * ({@code CHANGE MASTER TO ... MASTER_USE_GTID=slave_pos}). Its request names a GTID twin A has not written yet:
 * twin A waits for it ({@code dump.aheadWait}) instead of refusing with error 1236, then streams. Twin B is started
 * again.</li>
 * <li><b>Back through the front door.</b> Twin A is killed again; the replica is pointed at HAProxy again, which
 * sends it to twin B. Twin A is started again.</li>
 * </ol>
 * Each kill happens at a random moment within 5 s of its planned one (the seed is printed; {@code
 * -Dtributary.failover.seed} repeats a run); the load runs 120 s ({@code -Dtributary.failover.seconds}).
 * At the end, once both twins and the replica have caught up: the replica's tables equal the union of the shards'
 * ({@code CHECKSUM TABLE}); its binlog holds every global transaction exactly once, in GTID order; every committed
 * audit row is in it exactly once, each shard's in that shard's commit order (but for the rows of XA transactions
 * the twins logged as written ahead of their shards' commit order to break a cycle of crossing XA commits:
 * docs/operating.md, known limits), each XA's rows in ONE transaction and
 * no rolled-back XA's, each large transaction's rows whole in the transaction of its audit row; only logical names
 * appear; the same holds for what mariadb-binlog read through HAProxy, over all its runs (the replica's {@code
 * audit.events} and {@code audit.large} are compared with the shards' too); the replica never stopped applying
 * and never got error 1236; the
 * twins' global binlogs are byte-identical; neither twin logged a warning or error about heartbeats. Without
 * HAProxy or mariadb-binlog the test is skipped, saying which is missing.
 */
@WithShards(count = 4)
class TwinsFailoverIT {

    /** The kills happen at these moments, each moved by up to {@value #JITTER_MS} ms at random (seed printed). */
    static final Duration FIRST_KILL_AT = Duration.ofSeconds(20);
    static final Duration SECOND_KILL_AT = Duration.ofSeconds(40);
    static final Duration THIRD_KILL_AT = Duration.ofSeconds(70);
    static final long JITTER_MS = 5000;
    static final Duration LOAD = Duration.ofSeconds(Long.getLong("tributary.failover.seconds", 120));
    /** A large audit transaction (4 MiB a shard, single or XA) this often: about 10 in the run, each spilled. */
    static final Duration LARGE_EVERY = Duration.ofSeconds(11);
    private static final Path TOOL = Path.of("/usr/bin/mariadb-binlog");
    private static final Pattern GTID = Pattern.compile("^#.*\\bGTID (\\d+)-(\\d+)-(\\d+)\\b");
    private static final Pattern COLUMN = Pattern.compile("^###\\s+@(\\d+)=(.*)$");

    @Test
    void aReplicaMovesBetweenTwinsByGtidAndGetsEveryShardTransactionOnceInOrder(ShardCluster shards, @TempDir Path dir)
            throws Exception {
        Path haproxy = HaproxyFront.executable().orElse(null);
        assumeTrue(haproxy != null, "haproxy is not installed (apt-get install haproxy; .ci/run installs it)");
        assumeTrue(Files.isExecutable(TOOL), TOOL + " is not installed (mariadb-client)");
        OltpWriteOnlyLoad.Options options = SteadyLoadEndToEndIT.loadOptions(7);
        Process proxy = null;
        RemoteBinlogReader remote = null;
        DaemonProcess a = twin(shards, dir.resolve("a"), 0).start();
        DaemonProcess b = null;
        try (TributaryReplica replica = TributaryReplica.start(List.of("--log-slave-updates"));
                OltpWriteOnlyLoad load = new OltpWriteOnlyLoad(shards.infos(), options);
                AuditLoad audit = new AuditLoad(shards.infos(), 7, 25, LARGE_EVERY.toMillis())) {
            b = twin(shards, dir.resolve("b"), 1).start();
            int front = FreePorts.next();
            Path cfg = dir.resolve("haproxy.cfg");
            Files.writeString(cfg, HaproxyFront.withPorts(HaproxyFront.checkedIn(), front,
                    new int[] {a.dumpPort(), b.dumpPort()}, new int[] {a.managementPort(), b.managementPort()}));
            Path haproxyLog = dir.resolve("haproxy.log");
            proxy = new ProcessBuilder(haproxy.toString(), "-db", "-f", cfg.toString()).redirectErrorStream(true)
                    .redirectOutput(haproxyLog.toFile()).start();
            HaproxyFront.awaitListening(front, proxy, haproxyLog);
            replica.follow(front);
            ReplicaWatch watch = new ReplicaWatch(replica);
            remote = new RemoteBinlogReader(TOOL, front, TwinsIT.files(TwinsIT.binlog(a)).get(0),
                    Path.of("target", "e2e-logs", "failover-remote").toAbsolutePath());
            long t0 = System.nanoTime();
            log(t0, "twins a (pid %d, dump %d) and b (pid %d, dump %d) up; HAProxy on %d; replica %s follows HAProxy",
                    a.pid(), a.dumpPort(), b.pid(), b.dumpPort(), front, replica.info());
            load.prepare();
            audit.prepare();
            load.start();
            audit.start();
            long seed = Long.getLong("tributary.failover.seed", System.nanoTime());
            java.util.Random random = new java.util.Random(seed);
            log(t0, "load started: %s, and the audit load; kill moments drawn with seed %d (-Dtributary.failover.seed)",
                    options, seed);

            // 1. twin A dies; the replica's reconnection through HAProxy lands on twin B
            sleepUntil(t0, FIRST_KILL_AT.plusMillis(random.nextLong(JITTER_MS)));
            String before = received(replica);
            long killedA = System.nanoTime();
            a.kill9();
            log(t0, "twin a killed with kill -9; the replica had received %s", before);
            HaproxyFront.awaitLog(haproxyLog, "Server tributary_twins/twin-a is DOWN", Duration.ofSeconds(30));
            String moved = awaitAdvancing(replica, before, Duration.ofSeconds(60));
            long failoverMs = (System.nanoTime() - killedA) / 1_000_000;
            // twin A is dead: the replica streams from twin B. (HAProxy logs a session when it ends; on a loaded machine
            // its 2 s health checks may also time out now and then and move the replica between the twins early.)
            log(t0, "the replica streams again through HAProxy (twin a is dead: from twin b) at %s, %d ms after the kill;"
                    + " HAProxy's sessions so far: %s", moved, failoverMs, sessions(haproxyLog));

            // 2. twin B dies; twin A, down all this time, comes back behind; the replica is moved to it by GTID
            sleepUntil(t0, SECOND_KILL_AT.plusMillis(random.nextLong(JITTER_MS)));
            String beforeSecond = received(replica);
            b.kill9();
            long killedB = System.nanoTime();
            HaproxyFront.awaitLog(haproxyLog, "tributary_twins/twin-b ", Duration.ofSeconds(10)); // its session on B has ended
            // moved before twin A is up: the replica retries every second, so its request reaches twin A as soon as
            // the dump port listens, which is before the shard readers start catching up
            replica.follow(a.dumpPort());
            a.restart();
            long restartMs = (System.nanoTime() - killedB) / 1_000_000;
            log(t0, "twin b killed with kill -9 at replica position %s; the replica moved to twin a's dump port directly,"
                    + " by GTID, and twin a started again in %d ms (it was down %d s)", beforeSecond, restartMs,
                    (System.nanoTime() - killedA) / 1_000_000_000);
            String movedAgain = awaitAdvancing(replica, beforeSecond, Duration.ofSeconds(90));
            long secondMs = (System.nanoTime() - killedB) / 1_000_000;
            log(t0, "the replica streams from twin a (%s) %d ms after twin b's kill, %d ms after twin a's start",
                    movedAgain, secondMs, secondMs - restartMs);
            awaitDaemonLog(a, " ms; streaming", Duration.ofSeconds(90));
            assertThat(a.logContains("which this daemon has not written yet")).as("twin a made the replica's request"
                    + " for a GTID it had not written wait (dump.aheadWait): %s", a.logFile()).isTrue();
            assertThat(a.logContains(" ms; streaming")).as("twin a streamed once it had written it: %s", a.logFile())
                    .isTrue();
            b.restart();
            log(t0, "twin b started again");

            // 3. twin A dies again; the replica goes back to the front door, which sends it to twin B
            sleepUntil(t0, THIRD_KILL_AT.plusMillis(random.nextLong(JITTER_MS)));
            String beforeThird = received(replica);
            a.kill9();
            long killedAgain = System.nanoTime();
            replica.follow(front);
            String movedBack = awaitAdvancing(replica, beforeThird, Duration.ofSeconds(60));
            long thirdMs = (System.nanoTime() - killedAgain) / 1_000_000;
            log(t0, "twin a killed with kill -9 again at %s; the replica, moved back to HAProxy, streams from twin b (%s)"
                    + " %d ms later", beforeThird, movedBack, thirdMs);
            Thread.sleep(3000);
            a.restart();
            log(t0, "twin a started again");

            sleepUntil(t0, LOAD);
            load.stop();
            audit.stop();
            long stoppedAt = System.currentTimeMillis();
            log(t0, "load stopped: %d commits (%d XA), %d aborted; audit: %s rows per shard, %d XA committed, %d rolled"
                    + " back", load.commits(), load.xaCommits(), load.aborted(), java.util.Arrays.toString(audit.committed()),
                    audit.committedXa().size(), audit.rolledBackXa().size());
            assertThat(load.failure()).as("load failure").isNull();
            assertThat(audit.failure()).as("audit load failure").isNull();
            TwinsIT.awaitCaughtUp(a, shards.size(), stoppedAt, Duration.ofSeconds(90));
            TwinsIT.awaitCaughtUp(b, shards.size(), stoppedAt, Duration.ofSeconds(90));
            String global = TributaryReplica.globalGtidPosition(a);
            replica.awaitApplied(global, Duration.ofSeconds(120));
            watch.close();
            log(t0, "twins and replica caught up at %s; replica errors seen on the way: %s", global, watch.errors());
            remote.awaitTransaction(global, Duration.ofSeconds(120));
            Path remoteText = remote.joinInto(Path.of("target", "e2e-logs", "failover-remote-binlog.txt")
                    .toAbsolutePath());
            List<RemoteBinlogReader.Session> runs = remote.sessions();
            runs.forEach(r -> log(t0, "mariadb-binlog through HAProxy, run %s", r));

            TwinsIT.awaitSameEnd(TwinsIT.binlog(a), TwinsIT.binlog(b), Duration.ofSeconds(60));
            List<String> names = TwinsIT.files(TwinsIT.binlog(a));
            assertThat(TwinsIT.files(TwinsIT.binlog(b))).as("files of twin b").isEqualTo(names);
            TwinsIT.assertIdentical(TwinsIT.binlog(a), TwinsIT.binlog(b), names);
            assertThat(watch.errors()).as("replica errors during the run").noneMatch(e -> e.startsWith("SQL"))
                    .noneMatch(e -> e.contains(" 1236"));
            List<UnionComparison.Result> results = UnionComparison.compare(shards.infos(), load, replica);
            results.forEach(r -> log(t0, "%s", r));
            assertThat(results).as("logical tables compared").hasSize(options.tables())
                    .allSatisfy(r -> assertThat(r.equal()).as("%s", r).isTrue());
            for (String table : List.of("events", "large")) {
                UnionComparison.Result r = UnionComparison.compare(shards.infos(), replica,
                        AuditLoad.DATABASE + "." + table, "events".equals(table) ? AuditLoad::table : AuditLoad::largeTable);
                log(t0, "%s", r);
                assertThat(r.equal()).as("%s", r).isTrue();
            }

            Applied applied = Applied.read(replica.binlogDirectory(), "failover-replica-binlog.txt");
            long lastSeq = Long.parseLong(global.substring(global.lastIndexOf('-') + 1));
            long[] committed = audit.committed();
            Map<String, List<Integer>> xas = audit.committedXa();
            assertThat(xas).as("audit XA transactions committed").isNotEmpty();
            List<String> large = audit.committedLarge();
            assertThat(large).as("rows of large audit transactions committed").hasSizeGreaterThanOrEqualTo(6);
            // XA transactions whose commits cross on two shards wait for each other: the sorter breaks such a cycle by
            // writing one of them ahead of its shards' commit order, and says so (GlobalSorter, invariant 4)
            Set<String> writtenAhead = new LinkedHashSet<>(writtenAhead(a));
            writtenAhead.addAll(writtenAhead(b));
            assertEveryShardTransactionOnce("the replica's binlog", applied, lastSeq, audit, writtenAhead);
            Applied read = Applied.parse(remoteText);
            assertEveryShardTransactionOnce("what mariadb-binlog read through HAProxy (" + remoteText + ", " + runs.size()
                    + " runs)", read, lastSeq, audit, writtenAhead);
            // the twins' files are identical: a run resumed by file and position goes on, whichever twin serves it
            Map<String, String> resumedOn = new TreeMap<>();
            for (RemoteBinlogReader.Session r : runs) {
                String request = "DumpRequest[from " + r.file() + ":" + r.position() + ",";
                if (r.position() > 4 && (logsContain(a, request) || logsContain(b, request))) {
                    resumedOn.put(r.file() + ":" + r.position(), (logsContain(a, request) ? "a" : "")
                            + (logsContain(b, request) ? "b" : ""));
                }
            }
            log(t0, "mariadb-binlog runs resumed by file and position, and the twin that took each request: %s",
                    resumedOn);
            assertThat(String.join("", resumedOn.values())).as("twins that served mariadb-binlog a resumed position: %s",
                    resumedOn).contains("a").contains("b");
            assertThat(TwinsIT.heartbeatProblems(a)).as("WARN/ERROR lines about heartbeats in twin a's logs").isEmpty();
            assertThat(TwinsIT.heartbeatProblems(b)).as("WARN/ERROR lines about heartbeats in twin b's logs").isEmpty();
            System.out.printf(Locale.ROOT, "E2E twins failover: %d transactions (%d XA) + %d audit transactions (%d XA, %d"
                    + " rolled back) in %d s; replica through HAProxy moved from twin a to twin b %d ms after kill -9;"
                    + " moved by GTID to twin a (restarted, behind: dump.aheadWait) and streaming %d ms after its start;"
                    + " back through HAProxy to twin b %d ms after twin a's second kill -9;"
                    + " %d global transactions applied once each, in order; %d binlog files identical; %d large (4 MiB a"
                    + " shard) audit rows; mariadb-binlog through HAProxy restarted %d times, read every transaction"
                    + " once%n", load.commits(),
                    load.xaCommits(), java.util.Arrays.stream(committed).sum() - xas.values().stream().mapToLong(List::size)
                            .sum() + xas.size(), xas.size(), audit.rolledBackXa().size(), LOAD.toSeconds(), failoverMs,
                    secondMs - restartMs, thirdMs, lastSeq, names.size(), large.size(), runs.size() - 1);
        } finally {
            if (remote != null) {
                remote.close();
            }
            stopProcess(proxy);
            if (b != null) {
                TwinsIT.keepLogs(b, "failover-b");
                b.close();
            }
            TwinsIT.keepLogs(a, "failover-a");
            a.close();
        }
    }

    /**
     * What a binlog holds, read from {@code mariadb-binlog --verbose} text: GTIDs in order, audit rows (shard, seq,
     * xa) with the GTID of the transaction holding each, the large rows ({@code shard:seq} of their audit row, and
     * the GTIDs holding them, per part), and any physical or heartbeat name.
     */
    record Applied(List<Long> sequences, Map<Integer, List<Long>> audit, Map<Integer, List<String>> auditXa,
            Map<String, Set<Long>> xaTransactions, Map<String, List<Integer>> xaShardsApplied, Set<String> physicalNames,
            Map<String, Long> auditGtids, Map<String, List<Long>> largeGtids) {

        List<Long> auditSeqs(int shard) {
            return audit.getOrDefault(shard, List.of());
        }

        /** Shard {@code shard}'s audit seqs in the order applied, without the rows of the XA transactions named. */
        List<Long> auditSeqsWithout(int shard, Set<String> gtrids) {
            List<Long> seqs = auditSeqs(shard);
            List<String> xa = auditXa.getOrDefault(shard, List.of());
            List<Long> out = new ArrayList<>();
            for (int i = 0; i < seqs.size(); i++) {
                if (xa.get(i) == null || !gtrids.contains(xa.get(i))) {
                    out.add(seqs.get(i));
                }
            }
            return out;
        }

        Set<Long> xaTransactions(String gtrid) {
            return xaTransactions.getOrDefault(gtrid, Set.of());
        }

        List<Integer> xaShards(String gtrid) {
            return xaShardsApplied.getOrDefault(gtrid, List.of());
        }

        /** The GTIDs of the transactions holding the large rows written with audit row {@code shardSeq}, one per row. */
        List<Long> largeGtids(String shardSeq) {
            return largeGtids.getOrDefault(shardSeq, List.of());
        }

        /** The replica's binlog files, decoded with mariadb-binlog into target/e2e-logs/{@code name}, read. */
        static Applied read(Path binlogDir, String name) throws IOException, InterruptedException {
            List<String> files;
            try (Stream<Path> list = Files.list(binlogDir)) {
                files = list.map(p -> p.toString()).filter(p -> p.matches(".*/mariadb-bin\\.\\d+")).sorted().toList();
            }
            List<String> cmd = new ArrayList<>(List.of(TOOL.toString(), "--no-defaults", "--verbose",
                    "--base64-output=DECODE-ROWS"));
            cmd.addAll(files);
            Path text = Path.of("target", "e2e-logs", name).toAbsolutePath();
            Files.createDirectories(text.getParent());
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(text.toFile()).start();
            assertThat(p.waitFor(120, TimeUnit.SECONDS)).as("mariadb-binlog finished").isTrue();
            assertThat(p.exitValue()).as("mariadb-binlog exit status on %s", files).isZero();
            return parse(text);
        }

        /** Reads mariadb-binlog's {@code --verbose --base64-output=DECODE-ROWS} text. */
        static Applied parse(Path text) throws IOException {
            Applied a = new Applied(new ArrayList<>(), new TreeMap<>(), new TreeMap<>(), new HashMap<>(), new HashMap<>(),
                    new LinkedHashSet<>(), new HashMap<>(), new HashMap<>());
            long current = -1;
            String table = null;
            Map<Integer, String> row = new HashMap<>();
            try (BufferedReader r = Files.newBufferedReader(text, StandardCharsets.ISO_8859_1)) {
                String line;
                while ((line = r.readLine()) != null) {
                    Matcher g = GTID.matcher(line);
                    if (g.find()) {
                        a.flush(row, table, current);
                        table = null;
                        current = Long.parseLong(g.group(3));
                        a.sequences.add(current);
                        continue;
                    }
                    if (!line.startsWith("###")) {
                        continue;
                    }
                    if (line.contains("`audit_") || line.contains("`sbtest_") || line.contains("__cdc")) {
                        a.physicalNames.add(line);
                    }
                    if (line.startsWith("### INSERT INTO ") || line.startsWith("### UPDATE ")
                            || line.startsWith("### DELETE FROM ")) {
                        a.flush(row, table, current);
                        table = line.startsWith("### INSERT INTO `" + AuditLoad.DATABASE + "`.`events`") ? "events"
                                : line.startsWith("### INSERT INTO `" + AuditLoad.DATABASE + "`.`large`") ? "large"
                                : null;
                        continue;
                    }
                    Matcher c = COLUMN.matcher(line);
                    if (table != null && c.find()) {
                        int column = Integer.parseInt(c.group(1));
                        if (row.containsKey(column)) {
                            a.flush(row, table, current);
                        }
                        row.put(column, column <= 3 ? c.group(2).strip() : "");
                    }
                }
                a.flush(row, table, current);
            }
            return a;
        }

        /** One audit or large row read (its first columns) is recorded and {@code row} cleared. */
        private void flush(Map<Integer, String> row, String table, long gtid) {
            if ("events".equals(table) && row.size() >= 3) {
                int shard = Integer.parseInt(row.get(1));
                audit.computeIfAbsent(shard, k -> new ArrayList<>()).add(Long.parseLong(row.get(2)));
                auditGtids.put(shard + ":" + row.get(2), gtid);
                String xa = row.get(3);
                auditXa.computeIfAbsent(shard, k -> new ArrayList<>()).add("NULL".equals(xa) ? null : xa.replace("'", ""));
                if (!"NULL".equals(xa)) {
                    String gtrid = xa.replace("'", "");
                    xaTransactions.computeIfAbsent(gtrid, k -> new LinkedHashSet<>()).add(gtid);
                    xaShardsApplied.computeIfAbsent(gtrid, k -> new ArrayList<>()).add(shard);
                }
            } else if ("large".equals(table) && row.size() >= 4) {
                largeGtids.computeIfAbsent(row.get(1) + ":" + row.get(2), k -> new ArrayList<>()).add(gtid);
            }
            row.clear();
        }
    }

    /**
     * What {@code got} holds, read by {@code who}: every global transaction once, in GTID order, up to {@code lastSeq};
     * every committed audit row once, each shard's in its commit order but for XA transactions written ahead; each
     * committed XA's rows in one transaction, on its shards; no rolled-back XA; the large rows of each large
     * transaction all there, once, in the transaction of its audit row; only logical names.
     */
    private static void assertEveryShardTransactionOnce(String who, Applied got, long lastSeq, AuditLoad audit,
            Set<String> writtenAhead) {
        assertThat(got.sequences()).as("GTIDs in %s (%d of them)", who, got.sequences().size())
                .hasSize((int) lastSeq).isSorted().doesNotHaveDuplicates();
        assertThat(got.sequences().get(got.sequences().size() - 1)).as("last GTID in %s", who).isEqualTo(lastSeq);
        assertThat(got.physicalNames()).as("physical or heartbeat names in %s", who).isEmpty();
        long[] committed = audit.committed();
        for (int s = 0; s < committed.length; s++) {
            List<Long> expected = new ArrayList<>();
            for (long q = 1; q <= committed[s]; q++) {
                expected.add(q);
            }
            assertThat(got.auditSeqs(s)).as("audit rows of shard %d in %s, each once", s, who)
                    .containsExactlyInAnyOrderElementsOf(expected);
            assertThat(got.auditSeqsWithout(s, writtenAhead)).as("audit rows of shard %d in %s in order, but for those"
                    + " of the XA transactions written ahead to break a commit cycle %s", s, who, writtenAhead).isSorted();
        }
        for (Map.Entry<String, List<Integer>> x : audit.committedXa().entrySet()) {
            assertThat(got.xaTransactions(x.getKey())).as("transactions in %s holding XA %s's rows", who, x.getKey())
                    .hasSize(1);
            assertThat(got.xaShards(x.getKey())).as("shards of XA %s's rows in %s", x.getKey(), who)
                    .containsExactlyElementsOf(x.getValue());
        }
        for (String rolledBack : audit.rolledBackXa()) {
            assertThat(got.xaShards(rolledBack)).as("rows of rolled-back XA %s in %s", rolledBack, who).isEmpty();
        }
        for (String shardSeq : audit.committedLarge()) {
            Long gtid = got.auditGtids().get(shardSeq);
            assertThat(got.largeGtids(shardSeq)).as("transactions in %s holding the %d large rows written with audit row"
                    + " %s", who, AuditLoad.LARGE_PARTS, shardSeq).hasSize(AuditLoad.LARGE_PARTS)
                    .containsOnly(gtid);
        }
    }

    /** Reads the replica's status every 250 ms and remembers every distinct error it showed. */
    static final class ReplicaWatch implements AutoCloseable {
        private final TributaryReplica replica;
        private final Set<String> errors = java.util.Collections.synchronizedSet(new LinkedHashSet<>());
        private final Thread thread;
        private volatile boolean running = true;

        ReplicaWatch(TributaryReplica replica) {
            this.replica = replica;
            this.thread = new Thread(this::run, "replica-watch");
            thread.setDaemon(true);
            thread.start();
        }

        private void run() {
            while (running) {
                try {
                    Map<String, String> s = replica.status();
                    String io = s.get("Last_IO_Errno");
                    if (io != null && !"0".equals(io)) {
                        errors.add("IO " + io + ": " + s.get("Last_IO_Error"));
                    }
                    String sql = TributaryReplica.sqlError(s);
                    if (sql != null) {
                        errors.add("SQL " + sql);
                    }
                    Thread.sleep(250);
                } catch (InterruptedException e) {
                    return;
                } catch (Exception e) {
                    errors.add("status not readable: " + e);
                }
            }
        }

        List<String> errors() {
            synchronized (errors) {
                return List.copyOf(errors);
            }
        }

        @Override
        public void close() throws InterruptedException {
            running = false;
            thread.join(5000);
        }
    }

    /** Whether any of the logs of twin {@code d}, over its restarts, holds {@code text}. */
    private static boolean logsContain(DaemonProcess d, String text) throws IOException {
        try (Stream<Path> logs = Files.list(d.directory())) {
            for (Path l : logs.filter(f -> f.getFileName().toString().endsWith(".log")).sorted().toList()) {
                if (Files.readString(l, StandardCharsets.ISO_8859_1).contains(text)) {
                    return true;
                }
            }
        }
        return false;
    }

    /** The gtrids a twin logged as written ahead of their shards' commit order, to break a cycle of XA commits. */
    private static List<String> writtenAhead(DaemonProcess d) throws IOException {
        List<String> out = new ArrayList<>();
        Pattern p = Pattern.compile("XA transaction '([^']+)' waits, across shards, .* writing it first");
        try (Stream<Path> logs = Files.list(d.directory())) {
            for (Path l : logs.filter(f -> f.getFileName().toString().endsWith(".log")).sorted().toList()) {
                for (String line : Files.readAllLines(l, StandardCharsets.UTF_8)) {
                    Matcher m = p.matcher(line);
                    if (m.find()) {
                        out.add(m.group(1));
                    }
                }
            }
        }
        return out;
    }

    /** A twin: the configuration twins share, with its own directory, ports and reader ids; dump logs at INFO. */
    private static DaemonProcess.Builder twin(ShardCluster shards, Path dir, int readerIdBlock) {
        return DaemonProcess.builder(shards.infos(), dir).flavor("mariadb").readerIdBlock(readerIdBlock)
                .heap("384m")
                .property("binlog.file.size", "1MB")
                .property("storage.txnPersistThreshold", "2MB") // the large audit transactions spill
                .property("logging.level.root", "WARN")
                .property("logging.level.io.tributary.daemon.runtime", "INFO")
                .property("logging.level.io.tributary.daemon.dump.BinlogStreamer", "INFO");
    }

    /** What the replica has received ({@code Gtid_IO_Pos}): applying past it means it got more from a twin. */
    private static String received(TributaryReplica replica) throws Exception {
        return replica.status().get("Gtid_IO_Pos");
    }

    /** The sequence number of a one-domain GTID position {@code 0-1-N}. */
    private static long sequence(String gtid) {
        return gtid == null || gtid.isBlank() ? 0 : Long.parseLong(gtid.substring(gtid.lastIndexOf('-') + 1).strip());
    }

    /**
     * Until the replica has applied past {@code from} (a position it had received) with both threads running: then
     * it has received more since; its position then.
     */
    private static String awaitAdvancing(TributaryReplica replica, String from, Duration timeout) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            Map<String, String> s = replica.status();
            String now = replica.gtidSlavePos();
            if (sequence(now) > sequence(from) && "Yes".equals(s.get("Slave_IO_Running"))
                    && "Yes".equals(s.get("Slave_SQL_Running"))) {
                return now;
            }
            Thread.sleep(100);
        }
        throw new AssertionError("the replica did not go on past " + from + " within " + timeout + ": " + replica.status());
    }

    private static void awaitDaemonLog(DaemonProcess d, String text, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!d.logContains(text)) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("no '" + text + "' in " + d.logFile() + " after " + timeout + "; it ends with:\n"
                        + d.tail(30));
            }
            Thread.sleep(200);
        }
    }

    private static void sleepUntil(long t0, Duration elapsed) throws InterruptedException {
        long wait = t0 + elapsed.toNanos() - System.nanoTime();
        if (wait > 0) {
            Thread.sleep(wait / 1_000_000);
        }
    }

    private static void log(long t0, String format, Object... args) {
        System.out.printf(Locale.ROOT, "[failover %6.1f s] %s%n", (System.nanoTime() - t0) / 1e9,
                String.format(Locale.ROOT, format, args));
    }

    private static void stopProcess(Process p) throws InterruptedException {
        if (p != null && p.isAlive()) {
            p.destroy();
            if (!p.waitFor(10, TimeUnit.SECONDS)) {
                p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        }
    }


    /** HAProxy's ended sessions per server, from its log (tcplog: one line per session, at its end). */
    private static Map<String, Integer> sessions(Path log) throws IOException {
        Map<String, Integer> out = new TreeMap<>();
        Matcher m = Pattern.compile("tributary_dump tributary_twins/(\\S+) ").matcher(Files.readString(log));
        while (m.find()) {
            out.merge(m.group(1), 1, Integer::sum);
        }
        return out;
    }
}
