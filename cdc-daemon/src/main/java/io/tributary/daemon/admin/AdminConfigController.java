package io.tributary.daemon.admin;

import io.tributary.core.config.ConfigurationException;
import java.util.Map;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code GET /admin/config}: the keys that can change while the daemon runs, with their values.
 * {@code PUT /admin/config/{key}} with the new value as a {@code text/plain} body: applied within the request, or
 * 400 with the reason (a refused value, or a body of another content type, e.g. curl's default form encoding).
 * Behind {@link AdminAuthentication}.
 */
@RestController
@RequestMapping("/admin/config")
public class AdminConfigController {

    private final LiveConfig live;

    public AdminConfigController(LiveConfig live) {
        this.live = live;
    }

    @GetMapping
    public Map<String, String> values() {
        return live.values();
    }

    @PutMapping("/{key}")
    public ResponseEntity<?> edit(@PathVariable("key") String key,
                                  @RequestHeader(value = "Content-Type", required = false) String contentType,
                                  @RequestBody(required = false) String value) {
        if (contentType != null && !MediaType.TEXT_PLAIN.equalsTypeAndSubtype(MediaType.parseMediaType(contentType))) {
            return refuse("send the new value as the request body with Content-Type: text/plain (got " + contentType
                    + "), e.g. curl -u USER:PASSWORD -X PUT -H 'Content-Type: text/plain' --data FORCE"
                    + " http://HOST:PORT/admin/config/storage.persist.mode");
        }
        if (value == null || value.isBlank()) {
            return refuse("the new value of " + key + " is required as the request body (Content-Type: text/plain)");
        }
        try {
            String old = live.edit(key, value);
            return ResponseEntity.ok(Map.of("key", key, "old", old, "new", live.values().get(key)));
        } catch (ConfigurationException e) {
            return refuse(e.getMessage());
        }
    }

    private static ResponseEntity<String> refuse(String reason) {
        return ResponseEntity.status(HttpStatus.BAD_REQUEST).contentType(MediaType.APPLICATION_JSON)
                .body(AdminErrors.body(HttpStatus.BAD_REQUEST.value(), reason));
    }
}
