package io.tributary.storage.buffer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tributary.core.config.ByteSize;
import io.tributary.core.config.ConfigKey;
import io.tributary.core.config.ConfigurationException;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PersistConfigTest {

    private static final long HEAP = 1L << 30;
    private final PersistConfig config = new PersistConfig(HEAP);

    @Test
    void defaultsAreThoseOfTheArchitecture() {
        PersistSettings s = config.defaultSettings();
        assertThat(s.persistOn()).isTrue();
        assertThat(s.mode()).isEqualTo(PersistMode.AUTO);
        assertThat(s.newThreshold()).isEqualTo(0.85);
        assertThat(s.allThreshold()).isEqualTo(0.95);
        assertThat(s.txnThresholdBytes()).isEqualTo(100L * 1024 * 1024);
        assertThat(s.memoryLimitBytes()).isEqualTo(HEAP / 4);
        assertThat(config.keys()).extracting(ConfigKey::name).containsExactly("storage.isPersistOn",
                "storage.persist.mode", "storage.persistNewThreshold", "storage.persistAllThreshold",
                "storage.txnPersistThreshold", "storage.memoryLimit", "storage.path");
        assertThat(config.keys()).allSatisfy(k -> assertThat(k.doc()).isNotBlank());
    }

    @Test
    void shouldParseSizesWithUnitsAndModesInAnyCase() {
        PersistSettings s = config.parse(Map.of("storage.txnPersistThreshold", "64 MB", "storage.memoryLimit", "200MB",
                "storage.persist.mode", "force", "storage.isPersistOn", "FALSE", "storage.path", "/tmp/x"));
        assertThat(s.txnThresholdBytes()).isEqualTo(64L << 20);
        assertThat(s.memoryLimitBytes()).isEqualTo(200L << 20);
        assertThat(s.mode()).isEqualTo(PersistMode.FORCE);
        assertThat(s.persistOn()).isFalse();
        assertThat(s.path()).isEqualTo(Path.of("/tmp/x"));
        assertThat(config.parse(PersistConfig.toValues(s))).isEqualTo(s);
    }

    @Test
    void shouldRefuseUnknownKeyWithTheKafkaWording() {
        assertThatThrownBy(() -> config.parse(Map.of("storage.persistMode", "AUTO")))
                .isInstanceOf(ConfigurationException.class)
                .hasMessageStartingWith("Invalid value AUTO for configuration storage.persistMode: unknown key");
    }

    @Test
    void shouldRefuseAModeOtherThanAutoOrForce() {
        assertThatThrownBy(() -> config.parse(Map.of("storage.persist.mode", "SOMETIMES")))
                .hasMessage("Invalid value SOMETIMES for configuration storage.persist.mode: expected AUTO or FORCE");
    }

    @Test
    void shouldRefuseThresholdsOutsideZeroToOne() {
        assertThatThrownBy(() -> config.parse(Map.of("storage.persistAllThreshold", "1.2")))
                .hasMessage("Invalid value 1.2 for configuration storage.persistAllThreshold: must be above 0 and at most 1"
                        + " (a share of the memory limit)");
        assertThatThrownBy(() -> config.parse(Map.of("storage.persistNewThreshold", "0")))
                .hasMessageStartingWith("Invalid value 0 for configuration storage.persistNewThreshold: must be above 0");
        assertThatThrownBy(() -> config.parse(Map.of("storage.persistNewThreshold", "lots")))
                .hasMessageStartingWith("Invalid value lots for configuration storage.persistNewThreshold: not a number");
    }

    @Test
    void shouldRefuseANewThresholdAboveTheAllThreshold() {
        assertThatThrownBy(() -> config.parse(Map.of("storage.persistNewThreshold", "0.9", "storage.persistAllThreshold",
                "0.8"))).hasMessageStartingWith("Invalid value 0.9 for configuration storage.persistNewThreshold: must not"
                + " exceed storage.persistAllThreshold (0.8)");
        assertThat(config.parse(Map.of("storage.persistNewThreshold", "0.8", "storage.persistAllThreshold", "0.8"))
                .newThreshold()).isEqualTo(0.8);
    }

    @Test
    void shouldRefuseSizesThatAreNotPositiveOrExceedTheHeap() {
        assertThatThrownBy(() -> config.parse(Map.of("storage.txnPersistThreshold", "0")))
                .hasMessage("Invalid value 0 for configuration storage.txnPersistThreshold: must be positive");
        assertThatThrownBy(() -> config.parse(Map.of("storage.txnPersistThreshold", "ten megs")))
                .hasMessageStartingWith("Invalid value ten megs for configuration storage.txnPersistThreshold: not a byte size");
        assertThatThrownBy(() -> config.parse(Map.of("storage.memoryLimit", "2GB")))
                .hasMessageStartingWith("Invalid value 2GB for configuration storage.memoryLimit: exceeds the JVM's max heap (1GB)");
    }

    @Test
    void shouldReportEveryProblemNotJustTheFirst() {
        ConfigurationException e = org.junit.jupiter.api.Assertions.assertThrows(ConfigurationException.class,
                () -> config.parse(Map.of("storage.persist.mode", "SOMETIMES", "storage.persistAllThreshold", "2",
                        "storage.isPersistOn", "yes", "storage.bogus", "1")));
        assertThat(e.problems()).hasSize(4).allSatisfy(p -> assertThat(p).startsWith("Invalid value "));
        assertThat(String.join("\n", e.problems())).contains("storage.bogus", "storage.persist.mode",
                "storage.persistAllThreshold", "storage.isPersistOn");
    }

    @Test
    void referenceDocumentationIsGeneratedFromTheDeclarations() {
        String doc = config.referenceTable();
        for (ConfigKey<?> k : config.keys()) {
            assertThat(doc).contains("| `" + k.name() + "` | " + k.defaultValue().get() + " | " + k.doc());
        }
        assertThat(doc).contains("| `storage.memoryLimit` | 256MB |");
    }

    @Test
    void byteSizesRoundTrip() {
        assertThat(ByteSize.parse("104857600")).isEqualTo(100L << 20);
        assertThat(ByteSize.parse("1gb")).isEqualTo(1L << 30);
        assertThat(ByteSize.format(100L << 20)).isEqualTo("100MB");
        assertThat(ByteSize.format(1537)).isEqualTo("1537B");
        assertThatThrownBy(() -> ByteSize.parse("99999999999TB")).hasMessage("too large for a byte size");
    }
}
