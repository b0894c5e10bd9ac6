package io.tributary.test.bench;

import io.tributary.test.daemon.DaemonProcess;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

/** What the bench runner runs ({@link BenchRunner}'s options, parsed from its command line). */
public record BenchOptions(boolean quick, Path out, Path work, Set<String> scenarios, List<Integer> importTables,
        List<Integer> tpccWarehouses, double tpccScale, List<Integer> oltpClients, double xaShare, int oltpRows,
        List<Integer> largeMb, List<String> largeModes, List<String> largeKinds, String largeContent,
        long offHeapCapMb, long offHeapMb,
        long persistHeapMb, List<Integer> blobClients, int blobRows, List<Integer> fanout, int fanoutClients,
        List<Integer> pipelineShards, int pipelineShardMb, int durationSeconds, long diskTestMb,
        List<Integer> catchupShards, List<String> catchupKinds, int catchupOutageSeconds, int catchupHistoryMb,
        int catchupClients, Path catchupJfr, Map<String, String> catchupDaemon, List<String> catchupJvm,
        int catchupRounds, List<String> catchupPeerJvm, String catchupPeerClasses, Map<String, String> catchupPeerDaemon,
        Path catchupPeerJava, Path catchupJar) {

    public static BenchOptions parse(String... args) {
        boolean quick = Stream.of(args).anyMatch("--quick"::equals);
        Path out = Path.of("bench-report");
        Path work = Path.of("target", "bench-work");
        Set<String> scenarios = new LinkedHashSet<>(BenchReport.SCENARIOS.keySet());
        if (quick) {
            // its daemon restarts and 1 GB history take minutes: a smoke run leaves it out unless asked for
            scenarios.remove("catchup");
        }
        List<Integer> importTables = quick ? List.of(8) : List.of(8, 16, 32);
        List<Integer> tpccWarehouses = quick ? List.of(4) : List.of(8);
        double tpccScale = quick ? 0.05 : 1;
        List<Integer> oltpClients = quick ? List.of(2, 8) : List.of(1, 2, 4, 8, 16, 32, 64);
        double xaShare = 0.1;
        int oltpRows = quick ? 2000 : 20_000;
        List<Integer> largeMb = quick ? List.of(16) : List.of(256, 1024, 4096);
        List<String> largeModes = List.of("off", "AUTO", "FORCE");
        List<String> largeKinds = List.of("single", "XA");
        String largeContent = "repeat";
        long offHeapCapMb = 6144;
        long offHeapMb = 0;
        long persistHeapMb = 512;
        List<Integer> blobClients = quick ? List.of(2) : List.of(1, 4, 16);
        int blobRows = quick ? 8 : 64;
        List<Integer> fanout = quick ? List.of(1, 8) : List.of(1, 8, 64);
        int fanoutClients = 4;
        List<Integer> pipelineShards = quick ? List.of(4) : List.of(4, 16);
        int pipelineShardMb = quick ? 8 : 64;
        int duration = quick ? 5 : 30;
        long diskTestMb = quick ? 128 : 1024;
        List<Integer> catchupShards = List.of(1, 4);
        List<String> catchupKinds = List.of("outage", "history");
        int catchupOutageSeconds = quick ? 10 : 60;
        int catchupHistoryMb = quick ? 64 : 1024;
        int catchupClients = 8;
        Path catchupJfr = null;
        Map<String, String> catchupDaemon = new LinkedHashMap<>();
        List<String> catchupJvm = List.of();
        int catchupRounds = 1;
        List<String> catchupPeerJvm = null;
        String catchupPeerClasses = null;
        Map<String, String> catchupPeerDaemon = new LinkedHashMap<>();
        Path catchupPeerJava = null;
        Path catchupJar = null;
        for (String a : args) {
            String v = a.contains("=") ? a.substring(a.indexOf('=') + 1) : "";
            String k = a.contains("=") ? a.substring(0, a.indexOf('=')) : a;
            switch (k) {
                case "--quick", "" -> { }
                case "--out" -> out = Path.of(v);
                case "--work" -> work = Path.of(v);
                case "--scenarios" -> {
                    scenarios = new LinkedHashSet<>(List.of(v.split(",")));
                    for (String s : scenarios) {
                        if (!BenchReport.SCENARIOS.containsKey(s)) {
                            throw new IllegalArgumentException("Invalid value " + s + " for --scenarios: allowed are "
                                    + String.join(",", BenchReport.SCENARIOS.keySet()));
                        }
                    }
                }
                case "--import-tables" -> importTables = ints(k, v);
                case "--tpcc-warehouses" -> tpccWarehouses = ints(k, v);
                case "--tpcc-scale" -> tpccScale = Double.parseDouble(v);
                case "--oltp-clients" -> oltpClients = ints(k, v);
                case "--xa-share" -> xaShare = Double.parseDouble(v);
                case "--oltp-rows" -> oltpRows = Integer.parseInt(v);
                case "--large-mb" -> largeMb = ints(k, v);
                case "--large-modes" -> {
                    largeModes = List.of(v.split(","));
                    for (String m : largeModes) {
                        if (!List.of("off", "AUTO", "FORCE").contains(m)) {
                            throw new IllegalArgumentException("Invalid value " + m
                                    + " for --large-modes: allowed are off,AUTO,FORCE");
                        }
                    }
                }
                case "--large-kinds" -> {
                    largeKinds = List.of(v.split(","));
                    for (String kind : largeKinds) {
                        if (!List.of("single", "XA").contains(kind)) {
                            throw new IllegalArgumentException("Invalid value " + kind
                                    + " for --large-kinds: allowed are single,XA");
                        }
                    }
                }
                case "--large-content" -> {
                    if (!v.equals("repeat") && !v.equals("random")) {
                        throw new IllegalArgumentException("Invalid value " + v + " for --large-content: allowed are"
                                + " repeat and random");
                    }
                    largeContent = v;
                }
                case "--off-heap-cap-mb" -> offHeapCapMb = Long.parseLong(v);
                case "--off-heap-mb" -> offHeapMb = Long.parseLong(v);
                case "--persist-heap-mb" -> persistHeapMb = Long.parseLong(v);
                case "--blob-clients" -> blobClients = ints(k, v);
                case "--blob-rows" -> blobRows = Integer.parseInt(v);
                case "--fanout" -> fanout = ints(k, v);
                case "--fanout-clients" -> fanoutClients = Integer.parseInt(v);
                case "--pipeline-shards" -> pipelineShards = ints(k, v);
                case "--pipeline-shard-mb" -> pipelineShardMb = Integer.parseInt(v);
                case "--duration" -> duration = Integer.parseInt(v);
                case "--disk-test-mb" -> diskTestMb = Long.parseLong(v);
                case "--catchup-shards" -> {
                    catchupShards = ints(k, v);
                    for (int n : catchupShards) {
                        if (n < 1 || n > BenchRunner.SHARDS) {
                            throw new IllegalArgumentException("Invalid value " + n + " for --catchup-shards: 1 to "
                                    + BenchRunner.SHARDS);
                        }
                    }
                }
                case "--catchup-kinds" -> {
                    catchupKinds = List.of(v.split(","));
                    for (String kind : catchupKinds) {
                        if (!List.of("outage", "history").contains(kind)) {
                            throw new IllegalArgumentException("Invalid value " + kind
                                    + " for --catchup-kinds: allowed are outage,history");
                        }
                    }
                }
                case "--catchup-outage" -> catchupOutageSeconds = Integer.parseInt(v);
                case "--catchup-history-mb" -> catchupHistoryMb = Integer.parseInt(v);
                case "--catchup-clients" -> catchupClients = Integer.parseInt(v);
                case "--catchup-jfr" -> catchupJfr = Path.of(v);
                case "--catchup-daemon" -> catchupDaemon.putAll(properties(k, v));
                case "--catchup-peer-daemon" -> catchupPeerDaemon.putAll(properties(k, v));
                case "--catchup-peer-java" -> {
                    catchupPeerJava = Path.of(v);
                    if (!Files.isExecutable(DaemonProcess.javaBinary(catchupPeerJava))) {
                        throw new IllegalArgumentException("Invalid value " + v + " for --catchup-peer-java: no"
                                + " bin/java under it (give a Java home, e.g. /usr/lib/jvm/temurin-25-jdk-amd64)");
                    }
                }
                case "--catchup-jar" -> {
                    catchupJar = Path.of(v).toAbsolutePath();
                    if (!Files.isRegularFile(catchupJar) || !v.endsWith(".jar")) {
                        throw new IllegalArgumentException("Invalid value " + v + " for --catchup-jar: no such jar (give"
                                + " the runnable cdc-daemon-*-exec.jar, or the application jar of its extracted layout)");
                    }
                }
                case "--catchup-jvm" -> catchupJvm = jvmOptions(k, v);
                case "--catchup-rounds" -> {
                    catchupRounds = Integer.parseInt(v);
                    if (catchupRounds < 1) {
                        throw new IllegalArgumentException("Invalid value " + v + " for --catchup-rounds: at least 1");
                    }
                }
                case "--catchup-peer-jvm" -> catchupPeerJvm = v.isEmpty() ? List.of() : jvmOptions(k, v);
                case "--catchup-peer-classes" -> {
                    for (String dir : v.split(":")) {
                        if (!Files.isDirectory(Path.of(dir)) && !Files.isRegularFile(Path.of(dir))) {
                            throw new IllegalArgumentException("Invalid value " + v + " for --catchup-peer-classes: "
                                    + dir + " is neither a directory nor a file");
                        }
                    }
                    catchupPeerClasses = v;
                }
                default -> throw new IllegalArgumentException("Unknown option " + a + ": allowed are --quick, --out=DIR,"
                        + " --work=DIR, --scenarios=LIST, --import-tables=LIST, --tpcc-warehouses=LIST, --tpcc-scale=F,"
                        + " --oltp-clients=LIST, --xa-share=F,"
                        + " --oltp-rows=N, --large-mb=LIST, --large-modes=off,AUTO,FORCE, --large-kinds=single,XA, --large-content=repeat|random,"
                        + " --off-heap-cap-mb=N, --off-heap-mb=N, --persist-heap-mb=N,"
                        + " --blob-clients=LIST, --blob-rows=N, --fanout=LIST, --fanout-clients=N,"
                        + " --pipeline-shards=LIST, --pipeline-shard-mb=N, --duration=SECONDS, --disk-test-mb=N,"
                        + " --catchup-shards=LIST, --catchup-kinds=outage,history, --catchup-outage=SECONDS,"
                        + " --catchup-history-mb=N, --catchup-clients=N, --catchup-jfr=DIR,"
                        + " --catchup-daemon=KEY=VALUE;..., --catchup-jvm=OPTION;..., --catchup-rounds=N,"
                        + " --catchup-peer-jvm=OPTION;..., --catchup-peer-classes=PATH:..., --catchup-peer-daemon=KEY=VALUE;...,"
                        + " --catchup-peer-java=JAVA_HOME, --catchup-jar=JAR");
            }
        }
        if (catchupJar != null && catchupPeerClasses != null) {
            // java -jar takes its classes from the jar alone: the peer would run the same build as the base
            throw new IllegalArgumentException("Invalid value " + catchupPeerClasses + " for --catchup-peer-classes:"
                    + " the daemons run as java -jar " + catchupJar + " (--catchup-jar), which takes no class path;"
                    + " give the peer's build as a jar of its own instead");
        }
        if (xaShare < 0 || xaShare > 1) {
            throw new IllegalArgumentException("Invalid value " + xaShare + " for --xa-share: must be 0 to 1");
        }
        if (!(tpccScale > 0 && tpccScale <= 1)) {
            throw new IllegalArgumentException("Invalid value " + tpccScale + " for --tpcc-scale: above 0, at most 1");
        }
        return new BenchOptions(quick, out, work, scenarios, importTables, tpccWarehouses, tpccScale, oltpClients, xaShare,
                oltpRows, largeMb, largeModes, largeKinds, largeContent, offHeapCapMb, offHeapMb, persistHeapMb, blobClients, blobRows, fanout,
                fanoutClients, pipelineShards, pipelineShardMb,
                duration, diskTestMb, catchupShards, catchupKinds, catchupOutageSeconds, catchupHistoryMb,
                catchupClients, catchupJfr, Map.copyOf(catchupDaemon), catchupJvm, catchupRounds, catchupPeerJvm,
                catchupPeerClasses, Map.copyOf(catchupPeerDaemon), catchupPeerJava, catchupJar);
    }

    private static Map<String, String> properties(String key, String v) {
        Map<String, String> m = new LinkedHashMap<>();
        for (String kv : v.split(";")) {
            int eq = kv.indexOf('=');
            if (eq < 1) {
                throw new IllegalArgumentException("Invalid value " + kv + " for " + key + ": key=value pairs separated"
                        + " by ';'");
            }
            m.put(kv.substring(0, eq), kv.substring(eq + 1));
        }
        return m;
    }

    /** Whether the catch-up runs a peer daemon beside the base one (other JVM options or other classes). */
    boolean catchupPeer() {
        return catchupPeerJvm != null || catchupPeerClasses != null || !catchupPeerDaemon.isEmpty()
                || catchupPeerJava != null;
    }

    /** What makes the peer daemon differ, for the report. */
    String peerDescription() {
        return "peer daemon" + (catchupPeerJvm == null ? "" : " with JVM options " + String.join(" ", catchupPeerJvm))
                + (catchupPeerClasses == null ? "" : " with classes from " + catchupPeerClasses)
                + (catchupPeerDaemon.isEmpty() ? "" : " with " + catchupPeerDaemon)
                + (catchupPeerJava == null ? "" : " on the Java runtime in " + catchupPeerJava);
    }

    private static List<String> jvmOptions(String key, String v) {
        List<String> options = List.of(v.split(";"));
        for (String opt : options) {
            if (!opt.startsWith("-")) {
                throw new IllegalArgumentException("Invalid value " + opt + " for " + key
                        + ": JVM options (each starting with '-') separated by ';'");
            }
        }
        return options;
    }

    private static List<Integer> ints(String key, String v) {
        try {
            return Stream.of(v.split(",")).map(String::strip).map(Integer::parseInt).toList();
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("Invalid value " + v + " for " + key + ": a comma-separated list of"
                    + " whole numbers", e);
        }
    }

    /** How many measured points the run has at most (the OLTP ladder may end early). */
    int steps() {
        int n = 0;
        n += scenarios.contains("import") ? importTables.size() : 0;
        n += scenarios.contains("tpcc") ? tpccWarehouses.size() : 0;
        n += scenarios.contains("oltp") ? oltpClients.size() : 0;
        n += scenarios.contains("large") ? largeMb.size() * largeModes.size() * largeKinds.size() : 0;
        n += scenarios.contains("blob") ? blobClients.size() : 0;
        n += scenarios.contains("fanout") ? fanout.size() : 0;
        n += scenarios.contains("pipeline") ? pipelineShards.size() : 0;
        n += scenarios.contains("catchup") ? catchupShards.size() * catchupKinds.size() : 0;
        return n;
    }

    String describe() {
        return (quick ? "quick" : "full") + ": windows of " + durationSeconds + " s; import tables " + importTables
                + "; tpcc warehouses " + tpccWarehouses + " at scale " + tpccScale + "; oltp clients " + oltpClients
                + " (XA share " + xaShare + ", " + oltpRows + " rows per table)"
                + "; large " + largeMb + " MB x " + largeModes + " x " + largeKinds + " (" + largeContent + " rows); blob clients " + blobClients + "; fan-out "
                + fanout + " subscribers under " + fanoutClients + " OLTP clients; pipeline shards " + pipelineShards
                + " x " + pipelineShardMb + " MB; catch-up " + catchupKinds + " over " + catchupShards
                + " shards (outage " + catchupOutageSeconds + " s, history " + catchupHistoryMb + " MB, "
                + catchupClients + " OLTP clients" + (catchupDaemon.isEmpty() ? "" : ", daemon " + catchupDaemon)
                + (catchupRounds == 1 ? "" : ", " + catchupRounds + " rounds")
                + (catchupPeer() ? ", " + peerDescription() : "")
                + ")";
    }
}
