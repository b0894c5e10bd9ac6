package io.tributary.daemon.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.springframework.boot.env.YamlPropertySourceLoader;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.PropertySource;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.io.FileSystemResource;
import org.yaml.snakeyaml.Yaml;

/**
 * deploy/docker-compose.yml and the files it mounts fit together and fit the daemon: the daemon's compose
 * configuration loads and names the MySQL services as its shards, every shard runs with the binlog settings
 * the daemon's preflight demands and a distinct server id, the passwords the daemon reads are passed in,
 * Prometheus scrapes the daemon and Grafana loads the dashboard. No Docker engine is involved: what this
 * cannot show (the containers actually starting) is listed in deploy/README.md as untested.
 */
class DeployComposeTest {

    private static final Path DEPLOY = Path.of("../deploy");
    private static final List<String> SHARD_FLAGS = List.of("--log-bin=mysql-bin", "--binlog-format=ROW",
            "--binlog-row-image=FULL", "--binlog-row-metadata=FULL", "--gtid-mode=ON", "--enforce-gtid-consistency=ON");
    private static final Pattern COMPOSE_VARIABLE = Pattern.compile("\\$\\{([A-Z0-9_]+)[^}]*}");

    @Test
    void shouldRunTheDaemonAgainstEveryMySqlShardService() throws IOException {
        Map<String, Object> services = map(compose().get("services"));
        List<String> shardServices = new ArrayList<>();
        Set<String> serverIds = new HashSet<>();
        for (Map.Entry<String, Object> e : services.entrySet()) {
            Map<String, Object> service = map(e.getValue());
            if (!String.valueOf(service.get("image")).startsWith("mysql:8.0")) {
                continue;
            }
            shardServices.add(e.getKey());
            List<String> command = strings(service.get("command"));
            assertThat(command).as("command of %s", e.getKey()).containsAll(SHARD_FLAGS);
            String serverId = command.stream().filter(c -> c.startsWith("--server-id=")).findFirst().orElse(null);
            assertThat(serverId).as("server id of %s", e.getKey()).isNotNull();
            assertThat(serverIds.add(serverId)).as("%s has a server id no other shard has", e.getKey()).isTrue();
            assertThat(strings(service.get("volumes"))).as("volumes of %s", e.getKey())
                    .contains("./compose/mysql-init:/docker-entrypoint-initdb.d:ro");
            Map<String, Object> env = map(service.get("environment"));
            assertThat(env.get("MYSQL_USER")).as("account of %s", e.getKey()).isEqualTo("tributary");
            assertThat(variables(env.get("MYSQL_PASSWORD"))).containsExactly("TRIBUTARY_SHARD_PASSWORD");
        }
        assertThat(shardServices).as("MySQL 8.0 shard services").hasSizeBetween(2, 4);

        TributaryConfig config = daemonConfig();
        assertThat(config.shards()).extracting(ShardConfig::host).containsExactlyElementsOf(shardServices);
        assertThat(config.shards()).allSatisfy(s -> {
            assertThat(s.port()).isEqualTo(3306);
            assertThat(s.user()).isEqualTo("tributary");
            assertThat(s.password()).isEqualTo("pw-TRIBUTARY_SHARD_PASSWORD");
        });
        assertThat(serverIds).doesNotContain("--server-id=" + config.binlog().serverId());
    }

    @Test
    void shouldPassTheDaemonEveryPasswordItsConfigurationReads() throws IOException {
        Map<String, Object> tributary = map(map(compose().get("services")).get("tributary"));
        Set<String> given = map(tributary.get("environment")).keySet();
        String yaml = Files.readString(DEPLOY.resolve("compose/application.yml"));
        Set<String> needed = new HashSet<>();
        Matcher env = Pattern.compile("password-env:\\s*(\\S+)").matcher(yaml);
        while (env.find()) {
            needed.add(env.group(1));
        }
        Matcher placeholder = Pattern.compile("\\$\\{([A-Za-z0-9_]+)}").matcher(yaml);
        while (placeholder.find()) {
            needed.add(placeholder.group(1));
        }
        assertThat(needed).contains("TRIBUTARY_SHARD_PASSWORD", "TRIBUTARY_ADMIN_PASSWORD", "TRIBUTARY_DUMP_PASSWORD");
        assertThat(given).containsAll(needed);
        assertThat(strings(tributary.get("volumes"))).contains("./compose/application.yml:/etc/tributary/application.yml:ro");
        assertThat(Files.readString(DEPLOY.resolve("Dockerfile")))
                .contains("--spring.config.additional-location=optional:file:/etc/tributary/application.yml")
                .contains("EXPOSE 3399 9400")
                .contains("cdc-daemon/target/cdc-daemon-*-exec.jar")
                .contains("SERVER_ADDRESS=0.0.0.0");
        assertThat(Files.readString(Path.of("pom.xml"))).as("the jar the Dockerfile copies")
                .contains("<classifier>exec</classifier>");
        assertThat(strings(tributary.get("ports"))).contains("127.0.0.1:3399:3399", "127.0.0.1:9400:9400");

        StandardEnvironment environment = environmentOf(DEPLOY.resolve("compose/application.yml"));
        assertThat(environment.getProperty("dump.users[0].name")).isEqualTo("tributary");
        assertThat(environment.getProperty("dump.users[0].password-env")).isEqualTo("TRIBUTARY_DUMP_PASSWORD");
        assertThat(environment.getProperty("cdc.admin.password-env")).isEqualTo("TRIBUTARY_ADMIN_PASSWORD");
        assertThatThrownBy(() -> new TributaryConfigLoader(environmentOf(DEPLOY.resolve("compose/application.yml")),
                name -> name.equals("TRIBUTARY_DUMP_PASSWORD") ? null : "pw").load())
                .as("an unset dump password stops the daemon instead of falling back to a default")
                .hasMessageContaining("TRIBUTARY_DUMP_PASSWORD");
    }

    @Test
    void shouldGrantWhatThePreflightChecks() throws IOException {
        String sql = Files.readString(DEPLOY.resolve("compose/mysql-init/01-tributary.sql"));
        assertThat(sql).contains("GRANT REPLICATION SLAVE, REPLICATION CLIENT, SELECT ON *.* TO 'tributary'@'%'")
                .contains("GRANT ALL PRIVILEGES ON `__cdc__`.* TO 'tributary'@'%'");
    }

    @Test
    void shouldScrapeTheDaemonAndProvisionTheDashboard() throws IOException {
        Map<String, Object> prometheus = yaml(DEPLOY.resolve("compose/prometheus.yml"));
        Map<String, Object> job = map(((List<?>) prometheus.get("scrape_configs")).get(0));
        assertThat(job.get("metrics_path")).isEqualTo("/actuator/prometheus");
        assertThat(strings(map(((List<?>) job.get("static_configs")).get(0)).get("targets"))).containsExactly("tributary:9400");

        Map<String, Object> services = map(compose().get("services"));
        List<String> grafanaVolumes = strings(map(services.get("grafana")).get("volumes"));
        assertThat(grafanaVolumes).contains("./grafana/provisioning:/etc/grafana/provisioning:ro");
        String dashboardMount = grafanaVolumes.stream().filter(v -> v.startsWith("./grafana/tributary-dashboard.json:"))
                .findFirst().orElseThrow(() -> new AssertionError("grafana mounts the dashboard: " + grafanaVolumes));
        String target = dashboardMount.split(":")[1];
        Map<String, Object> provider = map(((List<?>) yaml(DEPLOY.resolve("grafana/provisioning/dashboards/tributary.yml"))
                .get("providers")).get(0));
        assertThat(Path.of(target).getParent().toString()).isEqualTo(map(provider.get("options")).get("path"));
        Map<String, Object> datasource = map(((List<?>) yaml(DEPLOY.resolve("grafana/provisioning/datasources/prometheus.yml"))
                .get("datasources")).get(0));
        assertThat(datasource.get("url")).isEqualTo("http://prometheus:9090");
        assertThat(services).containsKeys("prometheus", "grafana", "tributary");
    }

    private static TributaryConfig daemonConfig() throws IOException {
        return new TributaryConfigLoader(environmentOf(DEPLOY.resolve("compose/application.yml")), name -> "pw-" + name)
                .load();
    }

    private static StandardEnvironment environmentOf(Path yaml) throws IOException {
        assertThat(Files.exists(yaml)).as("%s exists", yaml.toAbsolutePath()).isTrue();
        StandardEnvironment env = new StandardEnvironment();
        env.getPropertySources().forEach(s -> env.getPropertySources().remove(s.getName()));
        for (PropertySource<?> s : new YamlPropertySourceLoader().load("compose", new FileSystemResource(yaml))) {
            env.getPropertySources().addLast(s);
        }
        return env;
    }

    private static Map<String, Object> compose() throws IOException {
        return yaml(DEPLOY.resolve("docker-compose.yml"));
    }

    private static Map<String, Object> yaml(Path file) throws IOException {
        assertThat(Files.exists(file)).as("%s exists", file.toAbsolutePath()).isTrue();
        try (Reader r = Files.newBufferedReader(file)) {
            return map(new Yaml().load(r));
        }
    }

    /** The variable names a compose value interpolates ({@code ${NAME:?message}} and the like). */
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
