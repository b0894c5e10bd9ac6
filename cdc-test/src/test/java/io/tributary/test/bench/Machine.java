package io.tributary.test.bench;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The machine a run measured: cores, memory, CPU model, the disk's sequential write rate (measured in the
 * same run, on the file system the daemon writes to: {@code mb} MB in 8 MB writes, then fsync), and the
 * commit of the code measured.
 */
public record Machine(int cores, long memoryBytes, String cpuModel, String os, String javaVersion, double diskWriteMbPerSecond,
        long diskTestBytes, String commit, boolean dirty, Instant date) {

    public static Machine measure(Path dir, long diskTestMb) throws IOException, InterruptedException {
        Files.createDirectories(dir);
        return new Machine(Runtime.getRuntime().availableProcessors(), memTotal(), readCpuModel(),
                System.getProperty("os.name") + " " + System.getProperty("os.version"),
                System.getProperty("java.vm.name") + " " + System.getProperty("java.version"), diskRate(dir, diskTestMb),
                diskTestMb << 20, git("rev-parse", "HEAD"), !git("status", "--porcelain", "--untracked-files=no").isBlank(),
                Instant.now());
    }

    private static long memTotal() throws IOException {
        for (String l : Files.readAllLines(Path.of("/proc/meminfo"))) {
            if (l.startsWith("MemTotal:")) {
                return Long.parseLong(l.replaceAll("\\D", "")) * 1024;
            }
        }
        return -1;
    }

    private static String readCpuModel() throws IOException {
        for (String l : Files.readAllLines(Path.of("/proc/cpuinfo"))) {
            if (l.startsWith("model name")) {
                return l.substring(l.indexOf(':') + 1).strip();
            }
        }
        return "unknown";
    }

    private static double diskRate(Path dir, long mb) throws IOException {
        Path f = dir.resolve("disk-rate.tmp");
        byte[] block = new byte[8 << 20];
        ThreadLocalRandom.current().nextBytes(block);
        try (FileChannel ch = FileChannel.open(f, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            long t0 = System.nanoTime();
            for (long written = 0; written < (mb << 20); written += block.length) {
                ByteBuffer b = ByteBuffer.wrap(block);
                while (b.hasRemaining()) {
                    ch.write(b);
                }
            }
            ch.force(true);
            return (mb << 20) / 1e6 / ((System.nanoTime() - t0) / 1e9);
        } finally {
            Files.deleteIfExists(f);
        }
    }

    private static String git(String... args) throws InterruptedException {
        try {
            Process p = new ProcessBuilder(concat("git", args)).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            return p.waitFor() == 0 ? out : "unknown";
        } catch (IOException e) {
            return "unknown";
        }
    }

    private static List<String> concat(String first, String... rest) {
        java.util.ArrayList<String> l = new java.util.ArrayList<>(List.of(first));
        l.addAll(List.of(rest));
        return l;
    }

    public String describe() {
        return String.format(java.util.Locale.ROOT, "%d cores (%s), %.1f GB memory, disk sequential write %.0f MB/s"
                + " (%d MB, fsync), %s, %s; commit %s%s", cores, cpuModel, memoryBytes / 1e9, diskWriteMbPerSecond,
                diskTestBytes >> 20, os, javaVersion, commit.length() > 12 ? commit.substring(0, 12) : commit,
                dirty ? " (with uncommitted changes)" : "");
    }
}
