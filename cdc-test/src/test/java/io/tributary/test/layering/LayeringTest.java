package io.tributary.test.layering;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The layering of docs/architecture.md, checked on the main sources: cdc-core knows nothing of Spring, RocksDB
 * or files; cdc-storage nothing of Spring; no module imports one above it; each package of the data path imports
 * nothing of the stages after it; and no packages import each other, directly or through others.
 */
class LayeringTest {

    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    private static final List<String> MODULES = List.of("cdc-core", "cdc-storage", "cdc-daemon");
    private static final Pattern PACKAGE = Pattern.compile("^package ([\\w.]+);", Pattern.MULTILINE);
    private static final Pattern IMPORT = Pattern.compile("^import (?:static )?(io\\.tributary\\.[\\w.]+);", Pattern.MULTILINE);

    /**
     * The data path, as packages: what each stage may know. A stage never imports a later one; the file layer and
     * the dump server know nothing of how the binlog was made; the value types at the bottom import nothing above.
     */
    private static final Map<String, List<String>> FORBIDDEN = new LinkedHashMap<>();

    static {
        List<String> making = List.of("io.tributary.core.reader", "io.tributary.core.framing", "io.tributary.core.sorter",
                "io.tributary.core.heartbeat", "io.tributary.core.naming", "io.tributary.storage.assembler",
                "io.tributary.storage.merge", "io.tributary.storage.pipeline", "io.tributary.storage.buffer");
        // value types and codecs: the bottom of the house
        for (String bottom : List.of("io.tributary.core.event", "io.tributary.core.config", "io.tributary.core.position",
                "io.tributary.core.packet")) {
            FORBIDDEN.put(bottom, concat(making, List.of("io.tributary.core.transaction", "io.tributary.storage",
                    "io.tributary.daemon")));
        }
        // the logical schema is a value moved by DDL text: it knows nothing of how the statements arrive or are stored
        FORBIDDEN.put("io.tributary.core.schema", concat(making, List.of("io.tributary.core.transaction",
                "io.tributary.core.packet", "io.tributary.storage", "io.tributary.daemon")));
        // the framer classifies events; it knows no connection, no order, no buffer
        FORBIDDEN.put("io.tributary.core.framing", concat(List.of("io.tributary.core.reader", "io.tributary.core.sorter",
                "io.tributary.core.transaction"), List.of("io.tributary.storage", "io.tributary.daemon")));
        // the reader produces framed events; what comes after it is not its business
        FORBIDDEN.put("io.tributary.core.reader", List.of("io.tributary.core.sorter", "io.tributary.core.transaction",
                "io.tributary.core.naming", "io.tributary.core.heartbeat", "io.tributary.storage", "io.tributary.daemon"));
        // the sorter orders units by their positions and keys, never by a connection
        FORBIDDEN.put("io.tributary.core.sorter", List.of("io.tributary.core.reader", "io.tributary.core.naming",
                "io.tributary.core.heartbeat", "io.tributary.storage", "io.tributary.daemon"));
        FORBIDDEN.put("io.tributary.core.transaction", concat(making, List.of("io.tributary.storage", "io.tributary.daemon")));
        // the assembler buffers bytes of one shard; sorting, merging and writing come after it
        FORBIDDEN.put("io.tributary.storage.assembler", List.of("io.tributary.storage.merge", "io.tributary.storage.pipeline",
                "io.tributary.storage.binlog", "io.tributary.storage.tail", "io.tributary.daemon"));
        // the merge writes through the writer's API; how the stages are wired and served is not its business
        FORBIDDEN.put("io.tributary.storage.merge", List.of("io.tributary.storage.pipeline", "io.tributary.storage.tail",
                "io.tributary.daemon"));
        // the global binlog files and their tail: bytes and positions, not how they were made
        for (String serving : List.of("io.tributary.storage.binlog", "io.tributary.storage.tail",
                "io.tributary.storage.checkpoint", "io.tributary.storage.schema")) {
            FORBIDDEN.put(serving, concat(making, List.of("io.tributary.core.packet", "io.tributary.daemon")));
        }
        FORBIDDEN.put("io.tributary.daemon.dump", List.of("io.tributary.core.reader", "io.tributary.core.framing",
                "io.tributary.core.sorter", "io.tributary.storage.assembler", "io.tributary.storage.merge",
                "io.tributary.storage.pipeline", "io.tributary.daemon.runtime"));
    }

    @Test
    void coreImportsNoSpringRocksDbOrFileApis() throws IOException {
        assertThat(violations("cdc-core", Pattern.compile(
                "^import (static )?(org\\.springframework|org\\.rocksdb|java\\.io\\.File\\b|java\\.io\\.File[A-Z]|java\\.nio\\.file|io\\.tributary\\.(storage|daemon|test))")))
                .isEmpty();
    }

    @Test
    void storageImportsNoSpringAndNothingAboveIt() throws IOException {
        assertThat(violations("cdc-storage", Pattern.compile(
                "^import (static )?(org\\.springframework|io\\.tributary\\.(daemon|test))"))).isEmpty();
    }

    @Test
    void daemonImportsNothingFromTheTestModule() throws IOException {
        assertThat(violations("cdc-daemon", Pattern.compile("^import (static )?io\\.tributary\\.test"))).isEmpty();
    }

    @Test
    void eachStageOfTheDataPathImportsOnlyWhatComesBeforeIt() throws IOException {
        Map<String, Set<String>> graph = packageImports();
        assertThat(graph).as("packages found").containsKeys(FORBIDDEN.keySet().toArray(String[]::new));
        List<String> found = new ArrayList<>();
        FORBIDDEN.forEach((from, forbidden) -> {
            for (String to : graph.getOrDefault(from, Set.of())) {
                for (String f : forbidden) {
                    if (to.equals(f) || to.startsWith(f + ".")) {
                        found.add(from + " imports " + to);
                    }
                }
            }
        });
        assertThat(found).isEmpty();
    }

    @Test
    void noTwoPackagesImportEachOtherEvenThroughOthers() throws IOException {
        Map<String, Set<String>> graph = packageImports();
        List<String> cycles = new ArrayList<>();
        for (String start : graph.keySet()) {
            List<String> path = cycleFrom(start, graph);
            if (path != null) {
                cycles.add(String.join(" -> ", path));
            }
        }
        assertThat(cycles).isEmpty();
    }

    /** A shortest import path from {@code start} back to itself, or null (breadth first). */
    private static List<String> cycleFrom(String start, Map<String, Set<String>> graph) {
        Map<String, String> parent = new HashMap<>();
        ArrayDeque<String> queue = new ArrayDeque<>(graph.getOrDefault(start, Set.of()));
        graph.getOrDefault(start, Set.of()).forEach(n -> parent.put(n, start));
        while (!queue.isEmpty()) {
            String n = queue.poll();
            if (n.equals(start)) {
                List<String> path = new ArrayList<>(List.of(start));
                for (String p = parent.get(start); !p.equals(start); p = parent.get(p)) {
                    path.add(0, p);
                }
                path.add(0, start);
                return path;
            }
            for (String next : graph.getOrDefault(n, Set.of())) {
                if (!parent.containsKey(next)) {
                    parent.put(next, n);
                    queue.add(next);
                }
            }
        }
        return null;
    }

    /** Package to the other packages of the project its main sources import. */
    private static Map<String, Set<String>> packageImports() throws IOException {
        Map<String, Set<String>> graph = new TreeMap<>();
        for (String module : MODULES) {
            try (Stream<Path> files = Files.walk(ROOT.resolve(module).resolve("src/main/java"))) {
                for (Path file : files.filter(p -> p.toString().endsWith(".java")).toList()) {
                    String text = Files.readString(file);
                    Matcher pkg = PACKAGE.matcher(text);
                    if (!pkg.find()) {
                        continue;
                    }
                    Set<String> targets = graph.computeIfAbsent(pkg.group(1), k -> new TreeSet<>());
                    Matcher imp = IMPORT.matcher(text);
                    while (imp.find()) {
                        String to = packageOf(imp.group(1));
                        if (!to.equals(pkg.group(1))) {
                            targets.add(to);
                        }
                    }
                }
            }
        }
        return graph;
    }

    /** {@code io.tributary.core.event.EventType.Code} -> {@code io.tributary.core.event}. */
    private static String packageOf(String imported) {
        String[] parts = imported.split("\\.");
        int i = 0;
        while (i < parts.length && !Character.isUpperCase(parts[i].charAt(0))) {
            i++;
        }
        return String.join(".", Arrays.copyOf(parts, i));
    }

    @SafeVarargs
    private static List<String> concat(List<String>... lists) {
        List<String> all = new ArrayList<>();
        for (List<String> l : lists) {
            all.addAll(l);
        }
        return all;
    }

    private static List<String> violations(String module, Pattern forbidden) throws IOException {
        Path sources = ROOT.resolve(module).resolve("src/main/java");
        assertThat(sources).as("sources of %s", module).isDirectory();
        List<String> found = new ArrayList<>();
        try (Stream<Path> files = Files.walk(sources)) {
            for (Path file : files.filter(p -> p.toString().endsWith(".java")).toList()) {
                List<String> lines = Files.readAllLines(file);
                for (int i = 0; i < lines.size(); i++) {
                    if (forbidden.matcher(lines.get(i).trim()).find()) {
                        found.add(ROOT.relativize(file) + ":" + (i + 1) + ": " + lines.get(i).trim());
                    }
                }
            }
        }
        return found;
    }
}
