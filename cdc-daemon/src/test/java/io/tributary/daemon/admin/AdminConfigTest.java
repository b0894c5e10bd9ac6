package io.tributary.daemon.admin;

import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.daemon.TributaryApplication;
import io.tributary.storage.buffer.PersistMode;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The live edits a user makes on the management port: authenticated, validated as a whole snapshot,
 * applied at once, refused with a 400 and a reason, and kept across a restart by the overrides file.
 */
class AdminConfigTest {

    private final HttpClient http = HttpClient.newHttpClient();

    private ConfigurableApplicationContext start(Path overrides) {
        return start(overrides, "cdc.admin.user=admin", "cdc.admin.password=s3cret");
    }

    private ConfigurableApplicationContext start(Path overrides, String... admin) {
        return new SpringApplicationBuilder(TributaryApplication.class).properties(
                "cdc.shards[0].host=127.0.0.1", "cdc.shards[0].user=u", "cdc.shards[0].password=p",
                "dump.users[0].name=repl", "dump.users[0].password=repl-pw",
                "cdc.preflight.enabled=false", "cdc.runtime.enabled=false",
                "binlog.dir=" + overrides.getParent().resolve("binlog"),
                "cdc.overrides.file=" + overrides).properties(admin)
                .run("--server.port=0");
    }

    private HttpResponse<String> call(ConfigurableApplicationContext ctx, String method, String path, String body,
                                      String password) throws Exception {
        return call(ctx, method, path, body, password, "text/plain");
    }

    private HttpResponse<String> call(ConfigurableApplicationContext ctx, String method, String path, String body,
                                      String password, String contentType) throws Exception {
        int port = ((WebServerApplicationContext) ctx).getWebServer().getPort();
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        if (body != null && contentType != null) {
            b.header("Content-Type", contentType);
        }
        if (password != null) {
            b.header("Authorization", "Basic " + Base64.getEncoder().encodeToString(("admin:" + password)
                    .getBytes(StandardCharsets.UTF_8)));
        }
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void shouldApplyAValidEditAtOnceAndKeepItAcrossARestart(@TempDir Path dir) throws Exception {
        Path overrides = dir.resolve("tributary-overrides.properties");
        try (ConfigurableApplicationContext ctx = start(overrides)) {
            assertThat(call(ctx, "GET", "/admin/config", null, null).statusCode()).isEqualTo(401);
            assertThat(call(ctx, "GET", "/admin/config", null, "wrong").statusCode()).isEqualTo(401);
            HttpResponse<String> get = call(ctx, "GET", "/admin/config", null, "s3cret");
            assertThat(get.statusCode()).isEqualTo(200);
            assertThat(get.body()).contains("\"storage.persist.mode\":\"AUTO\"").doesNotContain("storage.path");

            HttpResponse<String> put = call(ctx, "PUT", "/admin/config/storage.persist.mode", "FORCE", "s3cret");
            assertThat(put.statusCode()).as(put.body()).isEqualTo(200);
            assertThat(ctx.getBean(LiveConfig.class).persist().current().mode()).isEqualTo(PersistMode.FORCE);
            assertThat(Files.readString(overrides)).contains("storage.persist.mode=FORCE")
                    .as("keys never edited keep following the configuration").doesNotContain("storage.memoryLimit");
        }
        try (ConfigurableApplicationContext again = start(overrides)) {
            assertThat(again.getBean(LiveConfig.class).persist().current().mode()).isEqualTo(PersistMode.FORCE);
        }
    }

    @Test
    void shouldRefuseAnInvalidEditWithTheReasonAndChangeNothing(@TempDir Path dir) throws Exception {
        Path overrides = dir.resolve("tributary-overrides.properties");
        try (ConfigurableApplicationContext ctx = start(overrides)) {
            HttpResponse<String> mode = call(ctx, "PUT", "/admin/config/storage.persist.mode", "SOMETIMES", "s3cret");
            assertThat(mode.statusCode()).isEqualTo(400);
            assertThat(mode.body()).contains("Invalid value SOMETIMES for configuration storage.persist.mode");
            HttpResponse<String> share = call(ctx, "PUT", "/admin/config/storage.persistAllThreshold", "1.2", "s3cret");
            assertThat(share.statusCode()).isEqualTo(400);
            assertThat(share.body()).contains("Invalid value 1.2 for configuration storage.persistAllThreshold");
            HttpResponse<String> order = call(ctx, "PUT", "/admin/config/storage.persistNewThreshold", "0.99", "s3cret");
            assertThat(order.statusCode()).isEqualTo(400);
            assertThat(order.body()).contains("must not exceed storage.persistAllThreshold");
            HttpResponse<String> unknown = call(ctx, "PUT", "/admin/config/storage.speed", "fast", "s3cret");
            assertThat(unknown.statusCode()).isEqualTo(400);
            assertThat(unknown.body()).contains("unknown key");

            LiveConfig live = ctx.getBean(LiveConfig.class);
            assertThat(live.persist().current().mode()).isEqualTo(PersistMode.AUTO);
            assertThat(live.persist().current().newThreshold()).isEqualTo(0.85);
            assertThat(live.persist().current().allThreshold()).isEqualTo(0.95);
            assertThat(Files.exists(overrides)).as("nothing saved").isFalse();
        }
    }

    @Test
    void shouldSayWhichKeysToSetWhenTheAdminEndpointsAreOff(@TempDir Path dir) throws Exception {
        try (ConfigurableApplicationContext ctx = start(dir.resolve("overrides.properties"), new String[0])) {
            HttpResponse<String> get = call(ctx, "GET", "/admin/config", null, "anything");
            assertThat(get.statusCode()).isEqualTo(403);
            assertThat(get.headers().firstValue("Content-Type")).hasValueSatisfying(
                    t -> assertThat(t).startsWith("application/json"));
            assertThat(get.body()).contains("\"status\":403", "admin endpoints are off: set cdc.admin.user and"
                    + " cdc.admin.password (or cdc.admin.password-env)");
            HttpResponse<String> put = call(ctx, "PUT", "/admin/config/storage.persist.mode", "FORCE", "anything");
            assertThat(put.statusCode()).isEqualTo(403);
            assertThat(put.body()).contains("set cdc.admin.user");
        }
    }

    @Test
    void shouldSayWhetherCredentialsAreMissingOrWrong(@TempDir Path dir) throws Exception {
        try (ConfigurableApplicationContext ctx = start(dir.resolve("overrides.properties"))) {
            HttpResponse<String> none = call(ctx, "GET", "/admin/config", null, null);
            assertThat(none.statusCode()).isEqualTo(401);
            assertThat(none.headers().firstValue("WWW-Authenticate")).hasValue("Basic realm=\"tributary\"");
            assertThat(none.body()).contains("authentication required: HTTP Basic with cdc.admin.user");
            HttpResponse<String> wrong = call(ctx, "GET", "/admin/config", null, "wrong");
            assertThat(wrong.statusCode()).isEqualTo(401);
            assertThat(wrong.body()).contains("wrong user or password");
        }
    }

    @Test
    void shouldNameTheExpectedContentTypeWhenTheBodyIsNotPlainText(@TempDir Path dir) throws Exception {
        Path overrides = dir.resolve("overrides.properties");
        try (ConfigurableApplicationContext ctx = start(overrides)) {
            // what curl -d sends without -H 'Content-Type: text/plain'
            HttpResponse<String> form = call(ctx, "PUT", "/admin/config/storage.persist.mode", "FORCE", "s3cret",
                    "application/x-www-form-urlencoded");
            assertThat(form.statusCode()).isEqualTo(400);
            assertThat(form.body()).contains("Content-Type: text/plain",
                    "(got application/x-www-form-urlencoded)");
            HttpResponse<String> empty = call(ctx, "PUT", "/admin/config/storage.persist.mode", "", "s3cret");
            assertThat(empty.statusCode()).isEqualTo(400);
            assertThat(empty.body()).contains("the new value of storage.persist.mode is required as the request body");
            assertThat(ctx.getBean(LiveConfig.class).persist().current().mode()).isEqualTo(PersistMode.AUTO);
            HttpResponse<String> utf8 = call(ctx, "PUT", "/admin/config/storage.persist.mode", "FORCE", "s3cret",
                    "text/plain; charset=UTF-8");
            assertThat(utf8.statusCode()).as(utf8.body()).isEqualTo(200);
        }
    }

    @Test
    void shouldTakeAnEnumValueInAnyCaseAndStoreItsCanonicalForm(@TempDir Path dir) throws Exception {
        Path overrides = dir.resolve("overrides.properties");
        try (ConfigurableApplicationContext ctx = start(overrides)) {
            HttpResponse<String> put = call(ctx, "PUT", "/admin/config/storage.persist.mode", " force ", "s3cret");
            assertThat(put.statusCode()).as(put.body()).isEqualTo(200);
            assertThat(put.body()).contains("\"new\":\"FORCE\"");
            assertThat(call(ctx, "GET", "/admin/config", null, "s3cret").body())
                    .contains("\"storage.persist.mode\":\"FORCE\"");
            assertThat(Files.readString(overrides)).contains("storage.persist.mode=FORCE")
                    .doesNotContain("=force");
        }
    }
}
