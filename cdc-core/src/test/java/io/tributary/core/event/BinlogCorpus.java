package io.tributary.core.event;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import java.util.zip.GZIPInputStream;

/**
 * The shared real-binlog corpus ({@code <tributary.shared.dir>/testdata/binlog}) and what its
 * {@code SOURCES.md} says about each file. Tests that use it are skipped, with a reason, when the folder
 * is absent.
 */
final class BinlogCorpus {

    private static final Pattern HEADING = Pattern.compile("^### `([^`]+)`\\s*$");
    private static final Pattern EVENTS = Pattern.compile("^\\* Events \\((\\d+)\\): (.*)$");
    private static final Pattern COUNT = Pattern.compile("(\\d+) [A-Za-z0-9_/]+(?: [a-z/]+)? x(\\d+)");
    private static final Pattern RAW_CODES = Pattern.compile("^\\* Raw type codes as stored in the file: (.*)$");
    private static final Pattern RAW_COUNT = Pattern.compile("(\\d+) x(\\d+)");
    private static final Pattern PAYLOAD = Pattern.compile("^\\* TRANSACTION_PAYLOAD: .*inner events: (.*)$");
    private static final Pattern TRAILING = Pattern.compile("^\\* Check note: (\\d+) trailing bytes after last complete event \\(offset (\\d+)\\)");
    private static final Pattern COMMIT_TS = Pattern.compile("^\\* GTID events carrying 8\\.0 commit timestamps: (\\d+)/(\\d+)");
    private static final Pattern GTID_LIST = Pattern.compile("GTID_LIST contents \\(domain-server-seq\\): \\[(.*)]");

    /** What SOURCES.md says about one file. */
    record Entry(String path, int eventCount, Map<Integer, Integer> typeCounts, Map<Integer, Integer> rawTypeCounts,
            List<List<Integer>> payloadInnerTypes, Long trailingOffset, int[] commitTimestampGtids, List<String> gtidList) {
    }

    private BinlogCorpus() {
    }

    /** The corpus folder; aborts the calling test (reported as skipped, with the reason) when it is absent. */
    static Path directory() {
        Path dir = directoryOrNull();
        assumeTrue(dir != null, absentReason());
        return dir;
    }

    static Path directoryOrNull() {
        String shared = System.getProperty("tributary.shared.dir");
        Path dir = shared == null ? null : Path.of(shared, "testdata", "binlog");
        return dir != null && Files.isDirectory(dir) ? dir : null;
    }

    static String absentReason() {
        return "binlog corpus not found: system property tributary.shared.dir is "
                + System.getProperty("tributary.shared.dir") + ", expected <shared>/testdata/binlog; corpus tests skipped";
    }

    /** Dynamic tests for each corpus file, or one skipped test saying why there are none. */
    static Stream<org.junit.jupiter.api.DynamicTest> perFile(
            java.util.function.BiFunction<Path, Path, org.junit.jupiter.api.DynamicTest> test) {
        Path dir = directoryOrNull();
        if (dir == null) {
            return Stream.of(org.junit.jupiter.api.DynamicTest.dynamicTest("corpus absent", () -> assumeTrue(false, absentReason())));
        }
        return files(dir).stream().map(f -> test.apply(dir, f));
    }

    static List<Path> files(Path dir) {
        try (Stream<Path> s = Files.walk(dir)) {
            return s.filter(Files::isRegularFile).filter(p -> !p.getFileName().toString().equals("SOURCES.md")).sorted()
                    .toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static String relative(Path dir, Path file) {
        return dir.relativize(file).toString().replace('\\', '/');
    }

    static byte[] read(Path file) {
        try {
            if (file.getFileName().toString().endsWith(".gz")) {
                try (InputStream in = new GZIPInputStream(Files.newInputStream(file))) {
                    return in.readAllBytes();
                }
            }
            return Files.readAllBytes(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static byte[] read(String relativePath) {
        return read(directory().resolve(relativePath));
    }

    static Map<String, Entry> sources(Path dir) {
        List<String> lines;
        try {
            lines = Files.readAllLines(dir.resolve("SOURCES.md"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Map<String, Entry> entries = new LinkedHashMap<>();
        String path = null;
        int count = -1;
        Map<Integer, Integer> types = new TreeMap<>();
        Map<Integer, Integer> raw = new TreeMap<>();
        List<List<Integer>> payloads = new ArrayList<>();
        Long trailing = null;
        int[] commitTs = null;
        List<String> gtidList = null;
        for (String line : lines) {
            Matcher m = HEADING.matcher(line);
            if (m.matches() || line.startsWith("## ")) {
                if (path != null) {
                    entries.put(path, new Entry(path, count, types, raw, payloads, trailing, commitTs, gtidList));
                }
                path = m.matches() ? m.group(1) : null;
                count = -1;
                types = new TreeMap<>();
                raw = new TreeMap<>();
                payloads = new ArrayList<>();
                trailing = null;
                commitTs = null;
                gtidList = null;
                continue;
            }
            if (path == null) {
                continue;
            }
            if ((m = EVENTS.matcher(line)).matches()) {
                count = Integer.parseInt(m.group(1));
                Matcher c = COUNT.matcher(m.group(2));
                while (c.find()) {
                    types.merge(Integer.parseInt(c.group(1)), Integer.parseInt(c.group(2)), Integer::sum);
                }
            } else if ((m = RAW_CODES.matcher(line)).matches()) {
                Matcher c = RAW_COUNT.matcher(m.group(1));
                while (c.find()) {
                    raw.put(Integer.parseInt(c.group(1)), Integer.parseInt(c.group(2)));
                }
            } else if ((m = PAYLOAD.matcher(line)).matches()) {
                List<Integer> inner = new ArrayList<>();
                for (String part : m.group(1).split(",")) {
                    inner.add(Integer.parseInt(part.trim().split(" ")[0]));
                }
                payloads.add(inner);
            } else if ((m = TRAILING.matcher(line)).find()) {
                trailing = Long.parseLong(m.group(2));
            } else if ((m = COMMIT_TS.matcher(line)).find()) {
                commitTs = new int[] {Integer.parseInt(m.group(1)), Integer.parseInt(m.group(2))};
            }
            if ((m = GTID_LIST.matcher(line)).find()) {
                gtidList = m.group(1).isBlank() ? List.of() : List.of(m.group(1).split(",\\s*"));
            }
        }
        if (path != null) {
            entries.put(path, new Entry(path, count, types, raw, payloads, trailing, commitTs, gtidList));
        }
        return entries;
    }
}
