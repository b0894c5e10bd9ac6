package io.tributary.test.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.daemon.config.ShardConfig;
import io.tributary.daemon.config.TributaryConfig;
import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;

/**
 * deploy/compose-twins.yml fits together and fits the daemon: the shards are docker-compose.yml's, two twins
 * mount the same configuration and read every shard with their own reader server ids, each keeps its global
 * binlog on its own volume, and HAProxy runs deploy/haproxy/haproxy.cfg as it is, whose two servers are these
 * twins on the daemon's dump and management ports. No Docker engine is involved (see deploy/README.md).
 */
class DeployComposeTwinsTest {

    private static final Path DEPLOY = Path.of("../deploy");
    private static final String CONFIG_MOUNT = "./compose/application.yml:/etc/tributary/application.yml:ro";
    private static final String DATA = "/var/lib/tributary";
    private static final Pattern COMPOSE_VARIABLE = Pattern.compile("\\$\\{([A-Z0-9_]+)[^}]*}");
    private static final Pattern HAPROXY_SERVER = Pattern.compile(
            "(?m)^\\s*server \\S+ ([A-Za-z0-9-]+):(\\d+) check port (\\d+)\\b(.*)$");

    @Test
    void shouldRunTwoTwinsWithOneConfigurationAgainstTheSameShards() throws IOException {
        Map<String, Object> services = services();
        List<String> shardServices = new ArrayList<>();
        for (Map.Entry<String, Object> e : services.entrySet()) {
            Map<String, Object> ext = map(e.getValue()).containsKey("extends") ? map(map(e.getValue()).get("extends")) : null;
            if (ext != null) {
                assertThat(ext.get("file")).as("%s extends", e.getKey()).isEqualTo("docker-compose.yml");
                Map<String, Object> base = map(map(yaml(DEPLOY.resolve("docker-compose.yml")).get("services"))
                        .get(String.valueOf(ext.get("service"))));
                assertThat(String.valueOf(base.get("image"))).as("%s is a shard", e.getKey()).startsWith("mysql:");
                shardServices.add(e.getKey());
            }
        }
        assertThat(shardServices).hasSizeBetween(2, 8);

        Map<String, TributaryConfig> twins = twinConfigs();
        assertThat(twins).hasSize(2);
        List<TributaryConfig> configs = new ArrayList<>(twins.values());
        TributaryConfig a = configs.get(0);
        TributaryConfig b = configs.get(1);
        assertThat(a.shards()).extracting(ShardConfig::host).containsExactlyElementsOf(shardServices);
        assertThat(b.shards()).extracting(ShardConfig::host).containsExactlyElementsOf(shardServices);
        assertThat(List.of(b.binlog().serverId(), b.binlog().domainId(), b.binlog().flavor(), b.binlog().fileSizeBytes()))
                .as("what a twin's GTIDs and files are made of")
                .isEqualTo(List.of(a.binlog().serverId(), a.binlog().domainId(), a.binlog().flavor(), a.binlog().fileSizeBytes()));
        Set<Long> readerIds = new TreeSet<>();
        for (TributaryConfig c : configs) {
            c.shards().forEach(s -> readerIds.add(s.readerServerId()));
        }
        assertThat(readerIds).as("every reader of every twin registers with its own server id")
                .hasSize(a.shards().size() + b.shards().size());
    }

    @Test
    void shouldKeepEachTwinsGlobalBinlogOnItsOwnVolumeAndPassItsPasswords() throws IOException {
        Map<String, Object> compose = yaml(DEPLOY.resolve("compose-twins.yml"));
        Set<String> declared = map(compose.get("volumes")).keySet();
        Set<String> dataVolumes = new TreeSet<>();
        Set<String> needed = DeployConfigs.passwordEnvs(Files.readString(DEPLOY.resolve("compose/application.yml")));
        assertThat(needed).isNotEmpty();
        for (String twin : twinConfigs().keySet()) {
            Map<String, Object> service = map(services().get(twin));
            List<String> volumes = strings(service.get("volumes"));
            assertThat(volumes).contains(CONFIG_MOUNT);
            String data = volumes.stream().filter(v -> v.endsWith(":" + DATA)).findFirst()
                    .orElseThrow(() -> new AssertionError(twin + " has no volume at " + DATA + ": " + volumes));
            String name = data.substring(0, data.indexOf(':'));
            assertThat(declared).as("named volumes").contains(name);
            dataVolumes.add(name);
            assertThat(map(service.get("environment")).keySet()).as("environment of %s", twin).containsAll(needed);
            for (String v : needed) {
                assertThat(variables(map(service.get("environment")).get(v))).containsExactly(v);
            }
            assertThat(strings(service.get("ports"))).as("%s leaves the dump port to HAProxy", twin)
                    .noneMatch(p -> p.endsWith(":3399"));
        }
        assertThat(dataVolumes).as("one volume per twin").hasSize(2);
    }

    @Test
    void shouldPutHaproxyWithTheCheckedInConfigurationInFrontOfTheTwins() throws IOException {
        Map<String, Object> haproxy = map(services().get("haproxy"));
        assertThat(strings(haproxy.get("volumes"))).contains("./haproxy/haproxy.cfg:/usr/local/etc/haproxy/haproxy.cfg:ro");
        String cfg = HaproxyFront.checkedIn();
        Matcher bind = Pattern.compile("(?m)^\\s*bind :(\\d+)$").matcher(cfg);
        assertThat(bind.find()).isTrue();
        assertThat(strings(haproxy.get("ports"))).containsExactly("127.0.0.1:" + bind.group(1) + ":" + bind.group(1));

        Map<String, TributaryConfig> twins = twinConfigs();
        Matcher server = HAPROXY_SERVER.matcher(cfg);
        List<String> names = new ArrayList<>();
        while (server.find()) {
            String twin = server.group(1);
            names.add(twin);
            assertThat(twins).as("haproxy.cfg's server %s is a twin of compose-twins.yml", twin).containsKey(twin);
            assertThat(Integer.parseInt(server.group(2))).isEqualTo(twins.get(twin).dump().port());
            assertThat(server.group(3)).as("the management port in the image").isEqualTo(managementPort());
        }
        assertThat(names).containsExactlyInAnyOrderElementsOf(twins.keySet());
        assertThat(haproxy.get("depends_on")).asString().contains(twins.keySet());
    }

    /** The twins (services running the Tributary image), each with its configuration as loaded in its container. */
    private static Map<String, TributaryConfig> twinConfigs() throws IOException {
        String yaml = Files.readString(DEPLOY.resolve("compose/application.yml"));
        Map<String, TributaryConfig> out = new LinkedHashMap<>();
        for (Map.Entry<String, Object> e : services().entrySet()) {
            Map<String, Object> service = map(e.getValue());
            if (!"tributary:dev".equals(service.get("image"))) {
                continue;
            }
            Map<String, String> env = new LinkedHashMap<>();
            map(service.get("environment")).forEach((k, v) -> env.put(k, String.valueOf(v)));
            out.put(e.getKey(), DeployConfigs.load(yaml, env));
        }
        return out;
    }

    /** server.port as the image sets it (SERVER_PORT in deploy/Dockerfile). */
    private static String managementPort() throws IOException {
        Matcher m = Pattern.compile("SERVER_PORT=(\\d+)").matcher(Files.readString(DEPLOY.resolve("Dockerfile")));
        assertThat(m.find()).as("SERVER_PORT in deploy/Dockerfile").isTrue();
        return m.group(1);
    }

    private static Map<String, Object> services() throws IOException {
        return map(yaml(DEPLOY.resolve("compose-twins.yml")).get("services"));
    }

    private static Map<String, Object> yaml(Path file) throws IOException {
        assertThat(Files.exists(file)).as("%s exists", file.toAbsolutePath()).isTrue();
        try (Reader r = Files.newBufferedReader(file)) {
            return map(new Yaml().load(r));
        }
    }

    private static List<String> variables(Object value) {
        List<String> out = new ArrayList<>();
        Matcher m = COMPOSE_VARIABLE.matcher(String.valueOf(value));
        while (m.find()) {
            out.add(m.group(1));
        }
        return out;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> map(Object o) {
        assertThat(o).isInstanceOf(Map.class);
        return new LinkedHashMap<>((Map<String, Object>) o);
    }

    private static List<String> strings(Object o) {
        assertThat(o).isInstanceOf(List.class);
        return ((List<?>) o).stream().map(String::valueOf).toList();
    }
}
