package io.tributary.test.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A 2 GB XA transaction over 4 shards through the merge stage in a JVM of its own with {@code -Xmx512m}
 * ({@link LargeXaTransactionRun}): it comes out as ONE global transaction of at least its size, the buffer's
 * memory stays within its budget (25% of the heap) because the branches spill to RocksDB, and the spill
 * store is empty afterwards.
 */
class LargeXaTransactionIT {

    private static final Pattern RESULT = Pattern.compile("RESULT ok mode=(\\w+) heap=(\\d+) MB .* in=(\\d+) MB out=(\\d+) MB"
            + " seconds=([\\d.]+) rate=([\\d.]+) MB/s peak_buffer_memory=(\\d+) MB peak_spilled=(\\d+) MB spill_empty_after=true");

    @ParameterizedTest
    @ValueSource(strings = {"AUTO", "FORCE"})
    void aTwoGigabyteXaTransactionOverFourShardsPassesThroughHalfAGigabyteOfHeap(String mode) throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process p = new ProcessBuilder(List.of(java, "-Xmx512m", "-cp", System.getProperty("java.class.path"),
                LargeXaTransactionRun.class.getName(), "--mb=2048", "--mode=" + mode)).redirectErrorStream(true).start();
        byte[] out = p.getInputStream().readAllBytes();
        assertThat(p.waitFor(5, TimeUnit.MINUTES)).as("finished within 5 minutes").isTrue();
        String text = new String(out, StandardCharsets.UTF_8);
        String tail = text.substring(Math.max(0, text.length() - 3000));
        assertThat(p.exitValue()).as("exit status; output tail:%n%s", tail).isZero();
        Matcher m = RESULT.matcher(text);
        assertThat(m.find()).as("result line in:%n%s", tail).isTrue();
        System.out.println(m.group());
        long heapMb = Long.parseLong(m.group(2));
        assertThat(heapMb).as("JVM heap").isLessThanOrEqualTo(512);
        assertThat(Long.parseLong(m.group(3))).as("MB in").isGreaterThanOrEqualTo(2100);
        assertThat(Long.parseLong(m.group(4))).as("MB written").isGreaterThanOrEqualTo(Long.parseLong(m.group(3)));
        assertThat(Long.parseLong(m.group(7))).as("peak buffer memory (MB), budget 25%% of %d MB", heapMb)
                .isLessThanOrEqualTo(heapMb / 4 + 8);
        assertThat(Long.parseLong(m.group(8))).as("MB spilled to RocksDB").isGreaterThan(1500);
    }
}
