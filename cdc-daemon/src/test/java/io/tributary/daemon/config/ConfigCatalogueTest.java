package io.tributary.daemon.config;

import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.core.config.ConfigKey;
import io.tributary.daemon.preflight.ShardPreflightConfiguration;
import io.tributary.daemon.runtime.RuntimeConfiguration;
import io.tributary.storage.buffer.PersistConfig;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;

/** Every key is declared once, under its section's prefix; the Spring conditions follow the declarations. */
class ConfigCatalogueTest {

    @Test
    void shouldDeclareEveryKeyOnceUnderItsSection() {
        List<ConfigKey<?>> keys = ConfigCatalogue.keys(new PersistConfig(1L << 30));
        assertThat(keys).extracting(ConfigKey::name).doesNotHaveDuplicates();
        for (ConfigCatalogue.Section s : ConfigCatalogue.sections(new PersistConfig(1L << 30))) {
            assertThat(s.keys()).allSatisfy(k -> assertThat(k.name()).startsWith(s.prefix()));
        }
        assertThat(ConfigCatalogue.BINLOG_DIR.defaultText()).isEqualTo("data/binlog");
    }

    @Test
    void shouldSwitchTheRuntimeAndPreflightWithTheDeclaredKeysAndDefaults() {
        assertCondition(RuntimeConfiguration.class.getAnnotation(ConditionalOnProperty.class), CdcKeys.RUNTIME_ENABLED);
        assertCondition(ShardPreflightConfiguration.class.getAnnotation(ConditionalOnProperty.class),
                CdcKeys.PREFLIGHT_ENABLED);
    }

    private static void assertCondition(ConditionalOnProperty condition, ConfigKey<Boolean> key) {
        assertThat(condition.name()).containsExactly(key.name());
        assertThat(condition.havingValue()).isEqualTo("true");
        assertThat(condition.matchIfMissing()).isEqualTo(key.parse(key.defaultText()));
    }
}
