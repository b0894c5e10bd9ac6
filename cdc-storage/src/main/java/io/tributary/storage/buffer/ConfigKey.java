package io.tributary.storage.buffer;

import java.util.Objects;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * One configuration key, declared once: name, type, default, parser with validator, and the doc string
 * reference documentation is generated from.
 *
 * @param name          the key, e.g. {@code storage.persistNewThreshold}
 * @param type          the parsed value's type
 * @param defaultValue  the default in configuration syntax, computed when asked (it may depend on the heap)
 * @param parser        text to value; throws {@link IllegalArgumentException} whose message is the reason
 * @param doc           what the key means
 * @param liveEditable  whether a running daemon may change it (otherwise it takes effect at start)
 */
public record ConfigKey<T>(String name, Class<T> type, Supplier<String> defaultValue, Function<String, T> parser,
        String doc, boolean liveEditable) {

    public ConfigKey {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(defaultValue, "defaultValue");
        Objects.requireNonNull(parser, "parser");
        Objects.requireNonNull(doc, "doc");
    }

    /** Parses {@code text}, or throws with the message "Invalid value V for configuration K: reason". */
    public T parse(String text) {
        if (text == null) {
            throw new IllegalArgumentException(InvalidConfigurationException.message(name, null, "a value is required"));
        }
        try {
            return parser.apply(text.strip());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(InvalidConfigurationException.message(name, text, e.getMessage()), e);
        }
    }

    @Override
    public String toString() {
        return name + " (" + type.getSimpleName() + ", default " + defaultValue.get() + "): " + doc;
    }
}
