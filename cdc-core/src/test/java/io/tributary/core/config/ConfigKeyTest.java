package io.tributary.core.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class ConfigKeyTest {

    private static final ConfigKey<Long> SIZE = ConfigKey.define("x.size", Long.class).defaultValue("1MB")
            .parser(ByteSize::parse).validator(v -> {
                if (v > 1L << 30) {
                    throw new IllegalArgumentException("at most 1GB");
                }
            }).doc("A size.").liveEditable().build();

    @Test
    void shouldParseTheDefaultAndRefuseWithTheKafkaWording() {
        assertThat(SIZE.parse(SIZE.defaultText())).isEqualTo(1L << 20);
        assertThat(SIZE.parse(" 2 MB ")).isEqualTo(2L << 20);
        assertThatThrownBy(() -> SIZE.parse("2GB")).isInstanceOf(ConfigurationException.class)
                .hasMessage("Invalid value 2GB for configuration x.size: at most 1GB");
        assertThatThrownBy(() -> SIZE.parse("lots")).hasMessageStartingWith(
                "Invalid value lots for configuration x.size: not a byte size");
        assertThatThrownBy(() -> SIZE.parse(null)).hasMessage(
                "Invalid value null for configuration x.size: a value is required");
        assertThat(SIZE.liveEditable()).isTrue();
        assertThat(SIZE.defaultDoc()).isEqualTo("1MB");
    }

    @Test
    void shouldComputeADefaultWhenAskedAndDocumentItAsDeclared() {
        AtomicLong heap = new AtomicLong(8L << 30);
        ConfigKey<Long> limit = ConfigKey.define("x.limit", Long.class)
                .computedDefault(() -> ByteSize.format(heap.get() / 4), "25% of the max heap")
                .parser(ByteSize::parse).doc("A limit.").build();
        assertThat(limit.defaultText()).isEqualTo("2GB");
        heap.set(1L << 30);
        assertThat(limit.defaultText()).isEqualTo("256MB");
        assertThat(limit.defaultDoc()).isEqualTo("25% of the max heap");
        assertThat(limit.withDefault("1GB").defaultText()).isEqualTo("1GB");
    }

    @Test
    void shouldNameListEntries() {
        ConfigKey<String> name = ConfigKey.define("x.users[i].name", String.class).required().parser(v -> v)
                .doc("A name.").build();
        assertThat(name.name(3)).isEqualTo("x.users[3].name");
        assertThat(name.defaultText()).isNull();
        assertThat(name.defaultDoc()).isEqualTo("required");
    }

    @Test
    void shouldCollectEveryProblemAndReportThemTogether() {
        ConfigKey<Duration> period = ConfigKey.define("x.period", Duration.class).defaultValue("10s")
                .parser(v -> DurationText.parse(v, "10s, 5m")).doc("A period.").build();
        ConfigProblems problems = new ConfigProblems();
        assertThat(problems.read(period, null)).isEqualTo(Duration.ofSeconds(10));
        assertThat(problems.read(period, "soon")).isNull();
        assertThat(problems.read(SIZE, "2GB")).isNull();
        problems.add("x.other", "v", "not allowed");
        ConfigurationException e = org.junit.jupiter.api.Assertions.assertThrows(ConfigurationException.class,
                problems::throwIfAny);
        assertThat(e.problems()).containsExactly(
                "Invalid value soon for configuration x.period: not a duration (e.g. 10s, 5m)",
                "Invalid value 2GB for configuration x.size: at most 1GB",
                "Invalid value v for configuration x.other: not allowed");
        assertThat(e.details()).extracting(ConfigProblem::key).containsExactly("x.period", "x.size", "x.other");
        assertThat(e.getMessage()).isEqualTo(e.listing()).startsWith("3 configuration problem(s):\n  - Invalid value soon");
        assertThat(new ConfigurationException(List.of(ConfigProblem.unmet("x", "shard s: not ready"))).getMessage())
                .isEqualTo("shard s: not ready");
    }

    @Test
    void byteSizesAndDurationsReadAsConfigurationWritesThem() {
        assertThat(ByteSize.parse("104857600")).isEqualTo(100L << 20);
        assertThat(ByteSize.format(1536L << 10)).isEqualTo("1536KB");
        assertThat(DurationText.parse("8H", "")).isEqualTo(Duration.ofHours(8));
        assertThat(DurationText.parse("0", "")).isZero();
        assertThat(DurationText.parse("PT0.05S", "")).isEqualTo(Duration.ofMillis(50));
    }

    private enum Mode { AUTO, FORCE }

    private enum Flavor { MYSQL, MARIADB }

    @Test
    void shouldWriteAnEnumValueGivenInAnyCaseInItsCanonicalForm() {
        ConfigKey<Mode> mode = ConfigKey.define("x.mode", Mode.class).defaultValue("AUTO")
                .parser(v -> Mode.valueOf(v.toUpperCase(java.util.Locale.ROOT))).doc("A mode.").build();
        ConfigKey<Flavor> flavor = ConfigKey.define("x.flavor", Flavor.class).defaultValue("mysql")
                .parser(v -> Flavor.valueOf(v.toUpperCase(java.util.Locale.ROOT)))
                .formatter(v -> v.name().toLowerCase(java.util.Locale.ROOT)).doc("A flavor.").build();
        assertThat(mode.canonical(" force ")).isEqualTo("FORCE");
        assertThat(flavor.canonical("MariaDB")).isEqualTo("mariadb");
        assertThat(flavor.withDefault("mariadb").canonical("MYSQL")).as("kept by withDefault").isEqualTo("mysql");
        assertThat(SIZE.canonical(" 2MB ")).as("other values as given").isEqualTo("2MB");
        assertThatThrownBy(() -> mode.canonical("sometimes")).isInstanceOf(ConfigurationException.class)
                .hasMessageStartingWith("Invalid value sometimes for configuration x.mode");
    }
}
