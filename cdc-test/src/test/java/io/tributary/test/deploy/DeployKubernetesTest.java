package io.tributary.test.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.Probe;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServicePort;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.tributary.daemon.config.ShardConfig;
import io.tributary.daemon.config.TributaryConfig;
import java.io.IOException;
import java.io.Reader;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;

/**
 * deploy/k8s/*.yaml read into fabric8's Kubernetes API classes (a field Kubernetes does not know fails the
 * test, as {@code kubectl apply} would refuse it), and checked for what a user relies on: two twins started in
 * parallel, each with its own volume under the global binlog's directory; the ports the daemon's own
 * configuration loader reads from the ConfigMap are the ones the containers, Services and probes use; the
 * Secret holds every password the configuration names; the two twins read the shards with distinct server
 * ids and write the same GTIDs. No cluster is involved (see deploy/README.md for what was not run).
 */
class DeployKubernetesTest {

    static final Path K8S = Path.of("../deploy/k8s");
    /** The image's working directory and configuration file (deploy/Dockerfile). */
    private static final String WORKDIR = "/var/lib/tributary";
    private static final String CONFIG_FILE = "/etc/tributary/application.yml";

    private static final Map<String, Class<? extends HasMetadata>> KINDS = Map.of("ConfigMap", ConfigMap.class,
            "Secret", Secret.class, "Service", Service.class, "StatefulSet", StatefulSet.class);
    private static final List<HasMetadata> RESOURCES = new ArrayList<>();

    @BeforeAll
    static synchronized void read() throws IOException {
        ObjectMapper json = new ObjectMapper();
        List<Path> files;
        try (Stream<Path> s = Files.list(K8S)) {
            files = s.filter(p -> p.toString().endsWith(".yaml")).sorted().toList();
        }
        assertThat(files).as("manifests in %s", K8S.toAbsolutePath()).isNotEmpty();
        for (Path file : files) {
            try (Reader r = Files.newBufferedReader(file)) {
                for (Object doc : new Yaml().loadAll(r)) {
                    if (doc == null) {
                        continue;
                    }
                    Map<?, ?> m = (Map<?, ?>) doc;
                    Class<? extends HasMetadata> type = KINDS.get(String.valueOf(m.get("kind")));
                    assertThat(type).as("kind %s in %s (this test knows %s)", m.get("kind"), file, KINDS.keySet())
                            .isNotNull();
                    HasMetadata resource = json.convertValue(m, type);
                    assertThat(resource.getApiVersion()).as("apiVersion in %s", file)
                            .isEqualTo(type == StatefulSet.class ? "apps/v1" : "v1");
                    List<String> unknown = new ArrayList<>();
                    unknownFields(resource, resource.getKind() + "/" + resource.getMetadata().getName(), unknown,
                            new IdentityHashMap<>());
                    assertThat(unknown).as("fields Kubernetes does not know, in %s", file).isEmpty();
                    RESOURCES.add(resource);
                }
            }
        }
    }

    @Test
    void shouldRunTwoTwinsInParallelEachWithItsOwnVolumeForTheGlobalBinlog() throws IOException {
        StatefulSet set = one(StatefulSet.class, "tributary");
        assertThat(set.getSpec().getReplicas()).isEqualTo(2);
        assertThat(set.getSpec().getPodManagementPolicy()).isEqualTo("Parallel");
        assertThat(set.getSpec().getTemplate().getMetadata().getLabels())
                .containsAllEntriesOf(set.getSpec().getSelector().getMatchLabels());
        Service headless = one(Service.class, set.getSpec().getServiceName());
        assertThat(headless.getSpec().getClusterIP()).as("the StatefulSet's Service is headless").isEqualTo("None");
        assertThat(set.getSpec().getTemplate().getMetadata().getLabels())
                .containsAllEntriesOf(headless.getSpec().getSelector());

        Container c = container(set);
        TributaryConfig config = config(0);
        Path binlogDir = Path.of(WORKDIR).resolve(config.binlog().dir()).normalize();
        List<String> claims = set.getSpec().getVolumeClaimTemplates().stream().map(PersistentVolumeClaim::getMetadata)
                .map(m -> m.getName()).toList();
        VolumeMount binlogMount = c.getVolumeMounts().stream()
                .filter(v -> binlogDir.startsWith(Path.of(v.getMountPath())))
                .max((x, y) -> Integer.compare(x.getMountPath().length(), y.getMountPath().length()))
                .orElseThrow(() -> new AssertionError("no volume holds " + binlogDir + ": " + c.getVolumeMounts()));
        assertThat(claims).as("the volume under %s is the pod's own claim", binlogDir).contains(binlogMount.getName());

        VolumeMount configMount = c.getVolumeMounts().stream()
                .filter(v -> Path.of(CONFIG_FILE).getParent().equals(Path.of(v.getMountPath()))).findFirst()
                .orElseThrow(() -> new AssertionError("nothing mounted at " + Path.of(CONFIG_FILE).getParent()));
        String configMapName = set.getSpec().getTemplate().getSpec().getVolumes().stream()
                .filter(v -> v.getName().equals(configMount.getName())).findFirst().orElseThrow()
                .getConfigMap().getName();
        assertThat(one(ConfigMap.class, configMapName).getData()).containsKey(Path.of(CONFIG_FILE).getFileName().toString());
        assertThat(Files.readString(Path.of("../deploy/Dockerfile"))).contains("WORKDIR " + WORKDIR)
                .contains("--spring.config.additional-location=optional:file:" + CONFIG_FILE);
    }

    @Test
    void shouldUseTheDaemonsPortsInContainersServicesAndProbes() throws IOException {
        StatefulSet set = one(StatefulSet.class, "tributary");
        Container c = container(set);
        int dumpPort = config(0).dump().port();
        int managementPort = Integer.parseInt(env(c, "SERVER_PORT"));
        assertThat(containerPort(c, "dump")).isEqualTo(dumpPort);
        assertThat(containerPort(c, "management")).isEqualTo(managementPort);
        assertThat(env(c, "SERVER_ADDRESS")).as("the kubelet probes the pod's address").isEqualTo("0.0.0.0");

        for (Service s : all(Service.class)) {
            assertThat(set.getSpec().getTemplate().getMetadata().getLabels()).containsAllEntriesOf(s.getSpec().getSelector());
            for (ServicePort p : s.getSpec().getPorts()) {
                assertThat(port(c, p.getTargetPort())).as("%s port %s", s.getMetadata().getName(), p.getName())
                        .isEqualTo(p.getPort());
            }
        }
        Service front = one(Service.class, "tributary");
        assertThat(front.getSpec().getPorts()).extracting(p -> port(c, p.getTargetPort())).containsExactly(dumpPort);

        assertThat(port(c, c.getStartupProbe().getTcpSocket().getPort())).as("startup: the dump port").isEqualTo(dumpPort);
        Probe readiness = c.getReadinessProbe();
        Probe liveness = c.getLivenessProbe();
        assertThat(port(c, readiness.getHttpGet().getPort())).isEqualTo(managementPort);
        assertThat(port(c, liveness.getHttpGet().getPort())).isEqualTo(managementPort);
        Map<String, String> management = managementProperties();
        assertThat(management).containsEntry("management.endpoint.health.probes.enabled", "true");
        assertThat(readiness.getHttpGet().getPath()).isEqualTo("/actuator/health/readiness");
        assertThat(liveness.getHttpGet().getPath()).isEqualTo("/actuator/health/liveness");
        assertThat(management.get("management.endpoint.health.group.readiness.include").split(","))
                .contains("readinessState", "shards", "globalBinlog", "disk");
    }

    @Test
    void shouldGiveEveryPasswordTheConfigurationNamesFromTheSecret() {
        Container c = container(one(StatefulSet.class, "tributary"));
        Set<String> named = DeployConfigs.passwordEnvs(applicationYml());
        assertThat(named).contains("TRIBUTARY_SHARD_PASSWORD", "TRIBUTARY_DUMP_PASSWORD", "TRIBUTARY_ADMIN_PASSWORD");
        Secret secret = one(Secret.class, "tributary-secrets");
        Set<String> keys = new TreeSet<>(secret.getStringData() != null ? secret.getStringData().keySet() : Set.of());
        if (secret.getData() != null) {
            keys.addAll(secret.getData().keySet());
        }
        for (String name : named) {
            EnvVar e = c.getEnv().stream().filter(v -> v.getName().equals(name)).findFirst()
                    .orElseThrow(() -> new AssertionError("the container has no environment variable " + name));
            assertThat(e.getValueFrom().getSecretKeyRef().getName()).isEqualTo(secret.getMetadata().getName());
            assertThat(keys).as("keys of the Secret").contains(e.getValueFrom().getSecretKeyRef().getKey());
        }
    }

    @Test
    void shouldGiveTheTwinsTheSameIdentityAndDistinctReaderServerIds() {
        TributaryConfig twin0 = config(0);
        TributaryConfig twin1 = config(1);
        assertThat(twin1.binlog().serverId()).isEqualTo(twin0.binlog().serverId());
        assertThat(twin1.binlog().domainId()).isEqualTo(twin0.binlog().domainId());
        assertThat(twin1.binlog().flavor()).isEqualTo(twin0.binlog().flavor());
        assertThat(twin1.binlog().fileSizeBytes()).isEqualTo(twin0.binlog().fileSizeBytes());
        assertThat(twin0.shards()).hasSameSizeAs(twin1.shards()).isNotEmpty();
        for (int i = 0; i < twin0.shards().size(); i++) {
            ShardConfig a = twin0.shards().get(i);
            ShardConfig b = twin1.shards().get(i);
            assertThat(List.of(a.host(), a.port())).isEqualTo(List.of(b.host(), b.port()));
            assertThat(a.readerServerId()).as("reader server ids of both twins on %s", a.name())
                    .isNotEqualTo(b.readerServerId());
        }
        String indexFrom = env(container(one(StatefulSet.class, "tributary")), "TRIBUTARY_TWIN_INDEX");
        assertThat(indexFrom).isEqualTo("fieldRef:metadata.labels['apps.kubernetes.io/pod-index']");
    }

    /** The ConfigMap's management.* keys, flattened as Spring reads them (for the probes' paths). */
    static synchronized Map<String, String> managementProperties() throws IOException {
        if (RESOURCES.isEmpty()) {
            read();
        }
        return DeployConfigs.properties(applicationYml(), "management.");
    }

    /** The ConfigMap's application.yml as twin {@code index} reads it ({@code TRIBUTARY_TWIN_INDEX} set). */
    private static TributaryConfig config(int index) {
        return DeployConfigs.load(applicationYml(), Map.of("TRIBUTARY_TWIN_INDEX", String.valueOf(index)));
    }

    private static String applicationYml() {
        String yml = one(ConfigMap.class, "tributary-config").getData().get("application.yml");
        assertThat(yml).as("application.yml in ConfigMap tributary-config").isNotBlank();
        return yml;
    }

    private static Container container(StatefulSet set) {
        List<Container> containers = set.getSpec().getTemplate().getSpec().getContainers();
        assertThat(containers).hasSize(1);
        return containers.get(0);
    }

    /** A literal value, or {@code fieldRef:<path>} for a downward-API one. */
    private static String env(Container c, String name) {
        EnvVar e = c.getEnv().stream().filter(v -> v.getName().equals(name)).findFirst()
                .orElseThrow(() -> new AssertionError("the container has no environment variable " + name));
        if (e.getValueFrom() != null && e.getValueFrom().getFieldRef() != null) {
            return "fieldRef:" + e.getValueFrom().getFieldRef().getFieldPath();
        }
        return e.getValue();
    }

    private static int containerPort(Container c, String name) {
        return c.getPorts().stream().filter(p -> name.equals(p.getName())).map(ContainerPort::getContainerPort).findFirst()
                .orElseThrow(() -> new AssertionError("the container has no port named " + name));
    }

    /** A port by number or by the name of a container port. */
    private static int port(Container c, IntOrString p) {
        assertThat(p).isNotNull();
        return p.getIntVal() != null ? p.getIntVal() : containerPort(c, p.getStrVal());
    }

    private static <T extends HasMetadata> List<T> all(Class<T> type) {
        return RESOURCES.stream().filter(type::isInstance).map(type::cast).toList();
    }

    private static <T extends HasMetadata> T one(Class<T> type, String name) {
        List<T> found = all(type).stream().filter(r -> name.equals(r.getMetadata().getName())).toList();
        assertThat(found).as("%s %s in %s", type.getSimpleName(), name, K8S).hasSize(1);
        return found.get(0);
    }

    /** Walks the model: every {@code additionalProperties} entry is a field the Kubernetes API does not have. */
    private static void unknownFields(Object o, String path, List<String> out, IdentityHashMap<Object, Boolean> seen) {
        if (o == null || seen.put(o, Boolean.TRUE) != null) {
            return;
        }
        if (o instanceof Collection<?> list) {
            int i = 0;
            for (Object e : list) {
                unknownFields(e, path + "[" + i++ + "]", out, seen);
            }
            return;
        }
        if (o instanceof Map<?, ?> map) {
            map.forEach((k, v) -> unknownFields(v, path + "." + k, out, seen));
            return;
        }
        if (!o.getClass().getName().startsWith("io.fabric8.kubernetes.api.model")) {
            return;
        }
        for (Method m : o.getClass().getMethods()) {
            if (m.getParameterCount() != 0 || Modifier.isStatic(m.getModifiers()) || !m.getName().startsWith("get")
                    || m.getDeclaringClass() == Object.class) {
                continue;
            }
            Object value;
            try {
                value = m.invoke(o);
            } catch (ReflectiveOperationException e) {
                continue;
            }
            if (m.getName().equals("getAdditionalProperties")) {
                if (value instanceof Map<?, ?> extra && !extra.isEmpty()) {
                    out.add(path + ": " + extra.keySet());
                }
            } else {
                unknownFields(value, path + "." + m.getName().substring(3), out, seen);
            }
        }
    }
}
