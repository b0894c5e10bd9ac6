package io.tributary.storage.buffer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tributary.core.config.ConfigurationException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class LivePersistSettingsTest {

    private final PersistConfig config = new PersistConfig(1L << 30);

    @Test
    void shouldSwapAValidEditAndTellListeners() {
        LivePersistSettings live = new LivePersistSettings(config, Map.of());
        List<PersistSettings> seen = new ArrayList<>();
        live.addListener(seen::add);
        PersistSettings next = live.apply(Map.of("storage.persist.mode", "FORCE", "storage.persistAllThreshold", "0.9"));
        assertThat(live.current()).isEqualTo(next);
        assertThat(next.mode()).isEqualTo(PersistMode.FORCE);
        assertThat(next.allThreshold()).isEqualTo(0.9);
        assertThat(seen).containsExactly(next);
        assertThat(live.values()).containsEntry("storage.persist.mode", "FORCE");
    }

    @Test
    void shouldRefuseABadEditAndChangeNothing() {
        LivePersistSettings live = new LivePersistSettings(config, Map.of("storage.persistNewThreshold", "0.5"));
        PersistSettings before = live.current();
        Map<String, String> valuesBefore = live.values();
        List<PersistSettings> seen = new ArrayList<>();
        live.addListener(seen::add);
        // A valid key together with a bad one: the snapshot is refused as a whole.
        assertThatThrownBy(() -> live.apply(Map.of("storage.persist.mode", "FORCE", "storage.persistAllThreshold", "1.5")))
                .isInstanceOf(ConfigurationException.class)
                .hasMessage("Invalid value 1.5 for configuration storage.persistAllThreshold: must be above 0 and at most 1"
                        + " (a share of the memory limit)");
        // Consistent alone, inconsistent with the current new threshold.
        assertThatThrownBy(() -> live.apply(Map.of("storage.persistAllThreshold", "0.4")))
                .hasMessageContaining("Invalid value 0.5 for configuration storage.persistNewThreshold: must not exceed");
        assertThatThrownBy(() -> live.apply(Map.of("storage.persist.mode", "SOMETIMES")))
                .hasMessage("Invalid value SOMETIMES for configuration storage.persist.mode: expected AUTO or FORCE");
        assertThatThrownBy(() -> live.apply(Map.of("storage.unknown", "1"))).hasMessageContaining("unknown key");
        assertThat(live.current()).isSameAs(before);
        assertThat(live.values()).isEqualTo(valuesBefore);
        assertThat(seen).isEmpty();
    }

    @Test
    void shouldRefuseToMoveTheSpillStoreWhileRunning() {
        LivePersistSettings live = new LivePersistSettings(config, Map.of("storage.path", "/tmp/a"));
        assertThatThrownBy(() -> live.apply(Map.of("storage.path", "/tmp/b")))
                .hasMessage("Invalid value /tmp/b for configuration storage.path: takes effect at start only; change it in"
                        + " the configuration file and restart");
        assertThat(live.apply(Map.of("storage.path", "/tmp/a")).path().toString()).isEqualTo("/tmp/a");
    }

    @Test
    void shouldRefuseABadInitialConfiguration() {
        assertThatThrownBy(() -> new LivePersistSettings(config, Map.of("storage.persistNewThreshold", "0.99")))
                .hasMessageStartingWith("Invalid value 0.99 for configuration storage.persistNewThreshold");
    }
}
