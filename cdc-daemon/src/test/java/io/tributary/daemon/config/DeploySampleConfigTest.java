package io.tributary.daemon.config;

import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.storage.binlog.BinlogConfig;
import io.tributary.storage.buffer.ConfigKey;
import io.tributary.storage.buffer.PersistConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.springframework.boot.env.YamlPropertySourceLoader;
import org.springframework.core.env.EnumerablePropertySource;
import org.springframework.core.env.PropertySource;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.io.FileSystemResource;

/** deploy/application.yml is a valid configuration and documents every key the daemon reads. */
class DeploySampleConfigTest {

    private static final Path SAMPLE = Path.of("../deploy/application.yml");

    @Test
    void shouldLoadTheDeploySampleWithItsFourShards() throws IOException {
        StandardEnvironment env = environmentOf(SAMPLE);
        TributaryConfig config = new TributaryConfigLoader(env, name -> name.startsWith("SHARD") ? "pw-" + name : null).load();
        assertThat(config.shards()).extracting(ShardConfig::name).containsExactly("shard-0", "shard-1", "shard-2", "shard-3");
        assertThat(config.shards().get(2).password()).isEqualTo("pw-SHARD2_PASSWORD");
        assertThat(config.dumpPort()).isEqualTo(3399);
        assertThat(config.binlog().fileSizeBytes()).isEqualTo(500L << 20);
        assertThat(config.persist().memoryLimitBytes()).isEqualTo(1L << 30);
    }

    @Test
    void shouldDocumentEveryStorageAndBinlogKey() throws IOException {
        Set<String> names = new HashSet<>();
        for (PropertySource<?> s : environmentOf(SAMPLE).getPropertySources()) {
            if (s instanceof EnumerablePropertySource<?> e) {
                names.addAll(java.util.List.of(e.getPropertyNames()));
            }
        }
        for (ConfigKey<?> k : new PersistConfig(8L << 30).keys()) {
            assertThat(names).as("deploy sample documents %s", k.name()).contains(k.name());
        }
        for (BinlogConfig.Key k : BinlogConfig.Key.values()) {
            assertThat(names).as("deploy sample documents %s", k.key()).contains(k.key());
        }
        assertThat(names).contains("cdc.heartbeat.interval", "cdc.xa.maxWait", "cdc.status.interval", "dump.port",
                "cdc.reader.server-id-base", "cdc.shards[0].start", "cdc.shards[0].reader-server-id");
    }

    private static StandardEnvironment environmentOf(Path yaml) throws IOException {
        assertThat(Files.exists(yaml)).as("%s exists", yaml.toAbsolutePath()).isTrue();
        StandardEnvironment env = new StandardEnvironment();
        env.getPropertySources().forEach(s -> env.getPropertySources().remove(s.getName()));
        for (PropertySource<?> s : new YamlPropertySourceLoader().load("sample", new FileSystemResource(yaml))) {
            env.getPropertySources().addLast(s);
        }
        return env;
    }
}
