package io.tributary.test.deploy;

import io.tributary.daemon.config.TributaryConfig;
import io.tributary.daemon.config.TributaryConfigLoader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.springframework.boot.env.YamlPropertySourceLoader;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.PropertySource;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.env.SystemEnvironmentPropertySource;
import org.springframework.core.io.ByteArrayResource;

/** A deploy file's daemon configuration, loaded by the daemon's own loader as a given container would see it. */
final class DeployConfigs {

    private static final Pattern PASSWORD_ENV = Pattern.compile("password-env:\\s*(\\S+)");

    private DeployConfigs() {
    }

    /**
     * {@code yaml} over the defaults, with {@code environment} as the process environment (Spring's relaxed names,
     * e.g. {@code CDC_READER_SERVER_ID_BASE}, and {@code ${NAME}} placeholders); every {@code password-env} is given
     * the password {@code pw-<NAME>}, whether or not the environment has it (check that with {@link #passwordEnvs}).
     */
    static TributaryConfig load(String yaml, Map<String, String> environment) {
        StandardEnvironment env = new StandardEnvironment();
        env.getPropertySources().forEach(s -> env.getPropertySources().remove(s.getName()));
        env.getPropertySources().addFirst(new SystemEnvironmentPropertySource("environment", new LinkedHashMap<>(environment)));
        for (PropertySource<?> s : sources(yaml)) {
            Map<String, Object> props = new LinkedHashMap<>();
            for (String name : ((MapPropertySource) s).getPropertyNames()) {
                if (name.endsWith(".password-env")) {
                    props.put(name.substring(0, name.length() - "-env".length()), "pw-" + s.getProperty(name));
                } else {
                    props.put(name, s.getProperty(name));
                }
            }
            env.getPropertySources().addLast(new MapPropertySource(s.getName(), props));
        }
        return new TributaryConfigLoader(env).load();
    }

    /** The flattened keys of {@code yaml} starting with {@code prefix}. */
    static Map<String, String> properties(String yaml, String prefix) {
        Map<String, String> out = new LinkedHashMap<>();
        for (PropertySource<?> s : sources(yaml)) {
            for (String name : ((MapPropertySource) s).getPropertyNames()) {
                if (name.startsWith(prefix)) {
                    out.put(name, String.valueOf(s.getProperty(name)));
                }
            }
        }
        return out;
    }

    /** The environment variables the configuration's {@code password-env} keys name. */
    static Set<String> passwordEnvs(String yaml) {
        Set<String> named = new TreeSet<>();
        Matcher m = PASSWORD_ENV.matcher(yaml);
        while (m.find()) {
            named.add(m.group(1));
        }
        return named;
    }

    private static List<PropertySource<?>> sources(String yaml) {
        try {
            return new YamlPropertySourceLoader().load("deploy", new ByteArrayResource(yaml.getBytes(StandardCharsets.UTF_8)));
        } catch (IOException e) {
            throw new AssertionError("not YAML: " + e.getMessage(), e);
        }
    }
}
