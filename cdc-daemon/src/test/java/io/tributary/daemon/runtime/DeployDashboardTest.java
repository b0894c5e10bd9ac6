package io.tributary.daemon.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.tributary.daemon.config.ShardConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * deploy/grafana/tributary-dashboard.json queries only what the daemon exports: the Prometheus scrape of a
 * registry holding {@link TributaryMetrics} (the daemon's own meters, registered the way the daemon does)
 * decides which metric names, labels and label values exist; every query of the dashboard is checked
 * against it, and every metric the daemon exports has a panel.
 */
class DeployDashboardTest {

    private static final Path DASHBOARD = Path.of("../deploy/grafana/tributary-dashboard.json");
    /** Labels Prometheus adds to every series at scrape time (the target's), not the daemon. */
    private static final Set<String> TARGET_LABELS = Set.of("instance", "job");
    private static final Pattern METRIC = Pattern.compile("\\btributary_[a-zA-Z0-9_]+");
    private static final Pattern SELECTOR = Pattern.compile("(tributary_[a-zA-Z0-9_]+)\\s*\\{([^}]*)}");
    private static final Pattern MATCHER = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)\\s*(=~|!~|!=|=)\\s*\"([^\"]*)\"");
    private static final Pattern LABEL_VALUES = Pattern.compile("label_values\\(\\s*(tributary_[a-zA-Z0-9_]+)[^,]*,\\s*([a-zA-Z_][a-zA-Z0-9_]*)\\s*\\)");
    private static final Pattern LEGEND_LABEL = Pattern.compile("\\{\\{\\s*([a-zA-Z_][a-zA-Z0-9_]*)\\s*}}");

    /** metric name -> the label sets of its samples, from the scrape. */
    private static Map<String, List<Map<String, String>>> exported;
    private static String scrape;

    @BeforeAll
    static void scrapeTheDaemonsMeters() {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        TributaryMetrics metrics = new TributaryMetrics(registry, List.of(
                new ShardConfig(0, "shard-0", "db0", 3306, "tributary", "pw", false),
                new ShardConfig(1, "shard-1", "db1", 3306, "tributary", "pw", false)));
        long now = System.currentTimeMillis();
        metrics.durable(0, now - 120, now);
        metrics.durable(1, now - 80, now);
        scrape = registry.scrape();
        exported = parse(scrape);
        assertThat(exported).as("the scrape holds Tributary's meters:%n%s", scrape).isNotEmpty();
    }

    @Test
    void shouldQueryOnlyMetricsLabelsAndValuesTheDaemonExports() throws IOException {
        List<String> problems = new ArrayList<>();
        for (Query q : queries(dashboard())) {
            Set<String> names = new LinkedHashSet<>();
            Matcher m = METRIC.matcher(q.expr);
            while (m.find()) {
                names.add(m.group());
            }
            if (names.isEmpty()) {
                problems.add(q.where + ": queries no tributary_ metric: " + q.expr);
            }
            for (String name : names) {
                if (!exported.containsKey(name)) {
                    problems.add(q.where + ": " + name + " is not exported by the daemon");
                }
            }
            Matcher s = SELECTOR.matcher(q.expr);
            while (s.find()) {
                String name = s.group(1);
                Matcher mm = MATCHER.matcher(s.group(2));
                while (mm.find()) {
                    checkLabel(problems, q.where, name, mm.group(1), mm.group(2).equals("=") ? mm.group(3) : null);
                }
            }
            Matcher lv = LABEL_VALUES.matcher(q.expr);
            while (lv.find()) {
                checkLabel(problems, q.where, lv.group(1), lv.group(2), null);
            }
            if (q.legend != null) {
                Matcher l = LEGEND_LABEL.matcher(q.legend);
                while (l.find()) {
                    String label = l.group(1);
                    if (names.stream().noneMatch(n -> hasLabel(n, label))) {
                        problems.add(q.where + ": legend {{" + label + "}} but no metric of " + q.expr + " has that label");
                    }
                }
            }
        }
        assertThat(problems).as("dashboard queries against the daemon's scrape:%n%s", scrape).isEmpty();
    }

    @Test
    void shouldShowEveryMetricTheDaemonExports() throws IOException {
        Set<String> queried = new TreeSet<>();
        for (Query q : queries(dashboard())) {
            Matcher m = METRIC.matcher(q.expr);
            while (m.find()) {
                queried.add(m.group());
            }
        }
        Set<String> families = new TreeSet<>();
        for (String line : scrape.split("\n")) {
            if (line.startsWith("# TYPE tributary_")) {
                families.add(line.split(" ")[2]);
            }
        }
        assertThat(families).as("metric families in the scrape").hasSizeGreaterThanOrEqualTo(15);
        for (String family : families) {
            assertThat(queried).as("a dashboard panel shows %s", family)
                    .anyMatch(q -> q.equals(family) || q.startsWith(family + "_"));
        }
    }

    @Test
    void shouldUseItsDatasourceVariableAndOnePanelIdEach() throws IOException {
        JsonNode d = dashboard();
        assertThat(d.path("uid").asText()).isNotBlank();
        List<Integer> all = new ArrayList<>();
        for (JsonNode p : panels(d)) {
            all.add(p.path("id").asInt());
            if (!p.path("type").asText().equals("row")) {
                assertThat(p.path("datasource").path("uid").asText()).as("datasource of panel %s", p.path("title"))
                        .isEqualTo("${datasource}");
                assertThat(p.path("targets").size()).as("queries of panel %s", p.path("title")).isPositive();
            }
        }
        assertThat(all).doesNotHaveDuplicates();
        List<String> variables = new ArrayList<>();
        d.path("templating").path("list").forEach(v -> variables.add(v.path("name").asText()));
        assertThat(variables).contains("datasource", "instance", "shard");
    }

    private static void checkLabel(List<String> problems, String where, String metric, String label, String exactValue) {
        if (TARGET_LABELS.contains(label) || !exported.containsKey(metric)) {
            return;
        }
        if (!hasLabel(metric, label)) {
            problems.add(where + ": " + metric + " has no label " + label + " (labels: " + labelsOf(metric) + ")");
        } else if (exactValue != null && !exactValue.contains("$")
                && exported.get(metric).stream().noneMatch(l -> exactValue.equals(l.get(label)))) {
            problems.add(where + ": " + metric + " never has " + label + "=\"" + exactValue + "\"");
        }
    }

    private static boolean hasLabel(String metric, String label) {
        return TARGET_LABELS.contains(label)
                || exported.getOrDefault(metric, List.of()).stream().anyMatch(l -> l.containsKey(label));
    }

    private static Set<String> labelsOf(String metric) {
        Set<String> labels = new TreeSet<>();
        exported.getOrDefault(metric, List.of()).forEach(l -> labels.addAll(l.keySet()));
        return labels;
    }

    /** The Prometheus text format: {@code name{a="x",b="y"} value}, comments skipped. */
    private static Map<String, List<Map<String, String>>> parse(String text) {
        Map<String, List<Map<String, String>>> out = new LinkedHashMap<>();
        Pattern sample = Pattern.compile("([a-zA-Z_:][a-zA-Z0-9_:]*)(\\{([^}]*)})?\\s+\\S+.*");
        for (String line : text.split("\n")) {
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            Matcher m = sample.matcher(line);
            assertThat(m.matches()).as("scrape line %s", line).isTrue();
            Map<String, String> labels = new LinkedHashMap<>();
            if (m.group(3) != null) {
                Matcher l = MATCHER.matcher(m.group(3));
                while (l.find()) {
                    labels.put(l.group(1), l.group(3));
                }
            }
            out.computeIfAbsent(m.group(1), k -> new ArrayList<>()).add(labels);
        }
        return out;
    }

    private record Query(String where, String expr, String legend) {
    }

    private static List<Query> queries(JsonNode dashboard) {
        List<Query> out = new ArrayList<>();
        for (JsonNode p : panels(dashboard)) {
            for (JsonNode t : p.path("targets")) {
                out.add(new Query("panel '" + p.path("title").asText() + "' query " + t.path("refId").asText(),
                        t.path("expr").asText(), t.path("legendFormat").asText(null)));
            }
        }
        for (JsonNode v : dashboard.path("templating").path("list")) {
            if (v.path("type").asText().equals("query")) {
                JsonNode q = v.path("query");
                out.add(new Query("variable $" + v.path("name").asText(), q.isTextual() ? q.asText() : q.path("query").asText(),
                        null));
            }
        }
        assertThat(out).as("queries in %s", DASHBOARD).hasSizeGreaterThan(10);
        return out;
    }

    /** Top-level panels and those inside collapsed rows. */
    private static List<JsonNode> panels(JsonNode dashboard) {
        List<JsonNode> out = new ArrayList<>();
        for (JsonNode p : dashboard.path("panels")) {
            out.add(p);
            p.path("panels").forEach(out::add);
        }
        return out;
    }

    private static JsonNode dashboard() throws IOException {
        assertThat(Files.exists(DASHBOARD)).as("%s exists", DASHBOARD.toAbsolutePath()).isTrue();
        return new ObjectMapper().readTree(DASHBOARD.toFile());
    }
}
