package io.tributary.daemon.preflight;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tributary.daemon.TributaryApplication;
import io.tributary.daemon.config.ShardConfig;
import io.tributary.test.shard.ShardCluster;
import io.tributary.test.shard.ShardClusterConfig;
import io.tributary.test.shard.ShardInfo;
import java.sql.Connection;
import java.sql.Statement;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The startup check against real shards: a ready shard passes, a shard with the wrong binlog settings,
 * a wrong password or a weak account is refused with what to change; the daemon refuses to start then.
 */
class ShardPreflightIT {

    private static ShardCluster good;
    private static ShardCluster statementBased;

    @BeforeAll
    static void startShards() {
        good = ShardCluster.start(ShardClusterConfig.defaults().withCount(1));
        statementBased = ShardCluster.start(ShardClusterConfig.defaults().withCount(1).withServerOptions(List.of(
                "--binlog-format=STATEMENT", "--binlog-row-image=MINIMAL", "--binlog-row-metadata=MINIMAL")));
    }

    @AfterAll
    static void stopShards() {
        if (good != null) {
            good.close();
        }
        if (statementBased != null) {
            statementBased.close();
        }
    }

    private static ShardConfig config(ShardInfo s, String user, String password) {
        return new ShardConfig(0, s.name(), s.host(), s.port(), user, password, false);
    }

    @Test
    void shouldPassAShardWithRowBinlogsFullImagesAndTheReplicationAccount() {
        ShardInfo s = good.info(0);
        assertThat(ShardPreflight.check(config(s, s.replUser(), s.replPassword()))).isEmpty();
    }

    @Test
    void shouldSayWhichSettingIsWrongAndWhatToSet() {
        ShardInfo s = statementBased.info(0);
        List<String> problems = ShardPreflight.check(config(s, s.replUser(), s.replPassword()));
        String where = "shard " + s.name() + " (" + s.host() + ":" + s.port() + "): ";
        assertThat(problems).containsExactly(
                where + "binlog_format is STATEMENT, Tributary needs ROW; set binlog_format=ROW in the shard's my.cnf"
                        + " (or SET GLOBAL binlog_format='ROW')",
                where + "binlog_row_image is MINIMAL, Tributary needs FULL; set binlog_row_image=FULL in the shard's"
                        + " my.cnf (or SET GLOBAL binlog_row_image='FULL')",
                where + "binlog_row_metadata is MINIMAL, Tributary needs FULL; set binlog_row_metadata=FULL in the"
                        + " shard's my.cnf (or SET GLOBAL binlog_row_metadata='FULL'), so table maps carry column names");
    }

    @Test
    void shouldNameTheAccountWhenThePasswordIsWrongOrPrivilegesAreMissing() throws Exception {
        ShardInfo s = good.info(0);
        assertThat(ShardPreflight.check(config(s, s.replUser(), "wrong"))).singleElement().asString()
                .contains("access denied for " + s.replUser());
        try (Connection c = s.openAdminConnection(); Statement st = c.createStatement()) {
            st.execute("CREATE USER IF NOT EXISTS 'weak'@'%' IDENTIFIED BY 'weak-pass'");
            st.execute("GRANT SELECT ON *.* TO 'weak'@'%'");
        }
        assertThat(ShardPreflight.check(config(s, "weak", "weak-pass")))
                .anySatisfy(p -> assertThat(p).contains("account weak lacks REPLICATION SLAVE"))
                .anySatisfy(p -> assertThat(p).contains("account weak lacks BINLOG MONITOR"));
    }

    @Test
    void shouldRefuseToStartTheDaemonAgainstAMisconfiguredShard() {
        ShardInfo s = statementBased.info(0);
        SpringApplicationBuilder app = new SpringApplicationBuilder(TributaryApplication.class)
                .properties("cdc.shards[0].host=" + s.host(), "cdc.shards[0].port=" + s.port(),
                        "cdc.shards[0].user=" + s.replUser(), "cdc.shards[0].password=" + s.replPassword(),
                        "dump.users[0].name=repl", "dump.users[0].password=repl-pw",
                        "spring.main.web-application-type=none", "cdc.runtime.enabled=false",
                        "binlog.dir=target/preflight-binlog");
        assertThatThrownBy(app::run).hasStackTraceContaining("binlog_format is STATEMENT, Tributary needs ROW");
    }

    @Test
    void shouldStartTheDaemonAgainstAReadyShard() {
        ShardInfo s = good.info(0);
        try (ConfigurableApplicationContext context = new SpringApplicationBuilder(TributaryApplication.class)
                .properties("cdc.shards[0].host=" + s.host(), "cdc.shards[0].port=" + s.port(),
                        "cdc.shards[0].user=" + s.replUser(), "cdc.shards[0].password=" + s.replPassword(),
                        "dump.users[0].name=repl", "dump.users[0].password=repl-pw",
                        "spring.main.web-application-type=none", "cdc.runtime.enabled=false",
                        "binlog.dir=target/preflight-binlog").run()) {
            assertThat(context.getBean(ShardPreflightConfiguration.VerifiedShards.class).shards()).hasSize(1);
        }
    }
}
