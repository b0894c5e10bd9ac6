package io.tributary.daemon.admin;

import io.tributary.core.config.ConfigurationException;
import java.util.Map;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code GET /admin/config}: the keys that can change while the daemon runs, with their values.
 * {@code PUT /admin/config/{key}} with the new value as the body: applied within the request, or 400 with
 * the reason. Behind {@link AdminAuthentication}.
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
    public ResponseEntity<Map<String, String>> edit(@PathVariable("key") String key, @RequestBody String value) {
        try {
            String old = live.edit(key, value);
            return ResponseEntity.ok(Map.of("key", key, "old", old, "new", live.values().get(key)));
        } catch (ConfigurationException e) {
            return ResponseEntity.status(HttpStatus.BAD_REQUEST).body(Map.of("error", e.getMessage()));
        }
    }
}
