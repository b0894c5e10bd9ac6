package io.tributary.core.event;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * Damaged input never escapes as anything but a {@link BinlogFormatException}: for every corpus file,
 * seeded random byte changes and truncations (with checksums off, so the damage reaches the body
 * decoders) either decode or fail with a located error; no index error, no out-of-memory, no endless loop.
 */
class BinlogMutationTest {

    /** Mutations per file: 300, fewer for large files so that the whole run stays within seconds. */
    private static int mutations(int length) {
        return Math.max(20, Math.min(300, 2_000_000 / Math.max(1, length)));
    }

    @TestFactory
    Stream<DynamicTest> damagedFilesFailOnlyWithLocatedFormatErrors() {
        return BinlogCorpus.perFile((dir, file) -> DynamicTest.dynamicTest(BinlogCorpus.relative(dir, file),
                () -> mutate(BinlogCorpus.relative(dir, file), BinlogCorpus.read(file))));
    }

    private static void mutate(String name, byte[] original) {
        Random random = new Random(name.hashCode());
        DecoderOptions options = DecoderOptions.FULL.withVerifyChecksums(false).withMaxDecompressedBytes(1 << 20);
        for (int i = 0, n = mutations(original.length); i < n; i++) {
            byte[] bytes = original.clone();
            int length = bytes.length;
            if (random.nextInt(4) == 0) {
                length = random.nextInt(bytes.length + 1);
            } else {
                int changes = 1 + random.nextInt(4);
                for (int c = 0; c < changes && bytes.length > 4; c++) {
                    int at = 4 + random.nextInt(bytes.length - 4);
                    bytes[at] = random.nextInt(3) == 0 ? (byte) 0xFF : (byte) random.nextInt(256);
                }
            }
            BinlogEventDecoder decoder = new BinlogEventDecoder(name, bytes, 0, length, options);
            String what = "mutation " + i + " of " + name;
            try {
                int events = 0;
                while (decoder.hasNext()) {
                    BinlogEvent e = decoder.next();
                    assertThat(e.length()).as(what).isPositive();
                    if (++events > bytes.length) {
                        throw new AssertionError(what + ": more events than bytes, the decoder does not advance");
                    }
                }
            } catch (BinlogFormatException e) {
                assertThat(e.getMessage()).as(what).startsWith(name + " at offset ");
                assertThat(e.offset()).as(what).isBetween(0L, (long) length);
            } catch (RuntimeException | OutOfMemoryError e) {
                throw new AssertionError(what + " escaped as " + e, e);
            }
        }
    }
}
