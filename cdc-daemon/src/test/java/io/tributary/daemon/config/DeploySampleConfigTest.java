package io.tributary.daemon.config;

import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.core.config.ConfigKey;
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
        TributaryConfig config = new TributaryConfigLoader(env, name -> name.startsWith("SHARD")
                || name.startsWith("TRIBUTARY_") ? "pw-" + name : null).load();
        assertThat(config.shards()).extracting(ShardConfig::name).containsExactly("shard-0", "shard-1", "shard-2", "shard-3");
        assertThat(config.shards().get(2).password()).isEqualTo("pw-SHARD2_PASSWORD");
        assertThat(config.dumpPort()).isEqualTo(3399);
        assertThat(config.dump().users()).extracting(u -> u.name() + ":" + u.admin()).containsExactly("repl:false", "ops:true");
        assertThat(config.dump().tlsEnabled()).isTrue();
        assertThat(config.dump().tlsCertificate()).as("empty certificate: generate one").isNull();
        assertThat(config.dump().idleTimeout()).isEqualTo(java.time.Duration.ofHours(8));
        assertThat(config.dump().flavor()).isEqualTo(config.binlog().flavor());
        assertThat(config.naming().table("t_order_2024_01")).isEqualTo("t_order");
        assertThat(config.naming().table("orders_0007")).isEqualTo("orders");
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
        for (ConfigKey<?> k : ConfigCatalogue.keys(new PersistConfig(8L << 30))) {
            // list keys are documented on the sample's first entry; password-env replaces password there
            String key = k.name(0).endsWith(".password") ? k.name(0) + "-env" : k.name(0);
            assertThat(names).as("deploy sample documents %s", k.name()).contains(key);
        }
        assertThat(names).contains("cdc.heartbeat.interval", "cdc.xa.maxWait", "cdc.status.interval",
                "cdc.naming.strip-trailing-digits", "cdc.naming.rules[0].scope", "cdc.naming.rules[0].pattern",
                "cdc.naming.rules[0].replacement",
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
