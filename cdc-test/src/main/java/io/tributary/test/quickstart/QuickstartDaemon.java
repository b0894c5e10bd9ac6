package io.tributary.test.quickstart;

import io.tributary.daemon.TributaryApplication;
import io.tributary.daemon.runtime.TributaryRuntime;
import io.tributary.storage.binlog.GlobalBinlogWriter;
import io.tributary.test.shard.ShardInfo;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The Tributary daemon (the Spring Boot application users run) started in this JVM against the quickstart's
 * shards: the configuration a user would write in {@code application.yml}, given as properties. The global
 * binlog is MariaDB-flavored (so {@code mariadb-binlog} prints it natively) and lives under {@code dir}. The dump
 * port and the management port listen on {@code bind}; {@link #ADMIN_USER} may edit the live settings on both.
 */
final class QuickstartDaemon implements AutoCloseable {

    /** The account the dump server accepts in the quickstart. */
    static final String USER = "tributary";
    static final String PASSWORD = "tributary-pass";
    /** The admin account: HTTP on the management port ({@code cdc.admin.*}) and an admin dump user. */
    static final String ADMIN_USER = "admin";
    static final String ADMIN_PASSWORD = "admin-pass";

    private final ConfigurableApplicationContext context;
    private final TributaryRuntime runtime;
    private final int managementPort;

    QuickstartDaemon(List<ShardInfo> shards, Path dir, String bind, int dumpPort, int managementPort,
                     Duration statusInterval) {
        List<String> p = new ArrayList<>();
        for (ShardInfo s : shards) {
            String k = "cdc.shards[" + s.index() + "].";
            p.add(k + "name=" + s.name());
            p.add(k + "host=" + s.host());
            p.add(k + "port=" + s.port());
            p.add(k + "user=" + s.replUser());
            p.add(k + "password=" + s.replPassword());
        }
        p.add("cdc.status.interval=" + statusInterval.toSeconds() + "s");
        p.add("cdc.overrides.file=" + dir.resolve("tributary-overrides.properties"));
        p.add("binlog.dir=" + dir.resolve("binlog"));
        p.add("binlog.flavor=mariadb");
        p.add("binlog.server.id=1");
        p.add("storage.path=" + dir.resolve("spill"));
        p.add("dump.host=" + bind);
        p.add("dump.port=" + dumpPort);
        p.add("dump.users[0].name=" + USER);
        p.add("dump.users[0].password=" + PASSWORD);
        p.add("dump.users[1].name=" + ADMIN_USER);
        p.add("dump.users[1].password=" + ADMIN_PASSWORD);
        p.add("dump.users[1].admin=true");
        p.add("cdc.admin.user=" + ADMIN_USER);
        p.add("cdc.admin.password=" + ADMIN_PASSWORD);
        p.add("server.address=" + bind);
        p.add("server.port=" + managementPort);
        p.add("spring.main.banner-mode=off");
        p.add("logging.level.root=WARN");
        p.add("logging.level.io.tributary.status=INFO");
        p.add("logging.level.io.tributary.daemon.runtime=INFO");
        // main(): Spring's startup lines name the daemon, not the quickstart whose main() called this
        context = new SpringApplicationBuilder(TributaryApplication.class).main(TributaryApplication.class)
                .properties(p.toArray(String[]::new)).run();
        runtime = context.getBean(TributaryRuntime.class);
        this.managementPort = managementPort;
    }

    int dumpPort() {
        return runtime.dump().port();
    }

    int managementPort() {
        return managementPort;
    }

    /** The global binlog's end and how many transactions the daemon wrote. */
    String status() {
        GlobalBinlogWriter w = runtime.writer();
        Throwable failure = runtime.pipeline().failure();
        return "global " + w.writtenPosition().file() + ":" + w.writtenPosition().position() + ", "
                + w.counters().transactions() + " transactions" + (failure == null ? "" : ", FAILED: " + failure);
    }

    long transactionsWritten() {
        return runtime.writer().counters().transactions();
    }

    /** The daemon's graceful shutdown: readers stop, what they read becomes durable, subscribers close. */
    @Override
    public void close() {
        context.close();
    }
}
