package io.tributary.daemon.dump;

import io.tributary.core.config.ConfigurationException;
import java.util.Map;

/**
 * The settings a running daemon lets users change, as the dump server shows and edits them over SQL:
 * {@code SHOW [GLOBAL] VARIABLES LIKE 'storage%'} lists {@link #values()} beside the server variables, and
 * {@code SET GLOBAL storage.persist.mode = 'FORCE'} (by an account with {@code dump.users[i].admin: true})
 * calls {@link #set}. Implemented by the daemon's live configuration
 * ({@code io.tributary.daemon.admin.LiveConfig}), which validates, applies, persists and logs an edit.
 *
 * <p>Implementations are thread-safe; {@link #set} may block (it writes a file) and is never called on an
 * event loop.
 */
public interface LiveVariables {

    /** None: the dump server shows no live settings and refuses every {@code SET GLOBAL}. */
    LiveVariables NONE = new LiveVariables() {
        @Override
        public Map<String, String> values() {
            return Map.of();
        }

        @Override
        public String set(String key, String value) {
            throw ConfigurationException.invalid(key, value, "nothing can be changed while this server runs");
        }
    };

    /** Every key that can change while running, with its current value. */
    Map<String, String> values();

    /**
     * Changes one key; a refused edit changes nothing.
     *
     * @return the previous value
     * @throws IllegalArgumentException with the validation message (key, value and what is allowed)
     */
    String set(String key, String value);
}
