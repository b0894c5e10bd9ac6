package io.tributary.core.config;

import java.util.Objects;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * One configuration key, declared once: name, type, default, parser, validator, the doc text the reference
 * documentation is generated from, and whether a running daemon may change it. Build one with {@link #define}.
 *
 * <p>Parsing has two steps so that an owner can report conversion problems before range problems, as a whole
 * snapshot: {@link #convert} (text to value) and {@link #validate} (the value's range). Both throw
 * {@link IllegalArgumentException} whose message is the reason, without the value; {@link #parse} runs both and
 * words the refusal with the key and value. Immutable.
 *
 * @param name         the key, e.g. {@code storage.persistNewThreshold}; a list key has {@code [i]} where the index
 *                     goes ({@code dump.users[i].name})
 * @param type         the parsed value's type
 * @param defaultValue the default in configuration syntax, computed when asked (it may depend on the max heap);
 *                     it supplies null when the key has none
 * @param defaultDoc   the default as the reference documentation shows it (e.g. {@code 25% of the max heap})
 * @param parser       text (stripped) to value
 * @param validator    checks a converted value
 * @param doc          what the key means and what is allowed
 * @param liveEditable whether a running daemon may change it (otherwise it takes effect at start)
 * @param formatter    a value to its canonical text (e.g. {@code force} is stored as {@code FORCE}); null keeps
 *                     the text as given (stripped), which suits sizes and durations written as the user likes
 */
public record ConfigKey<T>(String name, Class<T> type, Supplier<String> defaultValue, String defaultDoc,
        Function<String, T> parser, Validator<T> validator, String doc, boolean liveEditable,
        Function<T, String> formatter) {

    /** Checks a converted value; throws {@link IllegalArgumentException} whose message is the reason. */
    @FunctionalInterface
    public interface Validator<T> {
        void check(T value);

        static <T> Validator<T> none() {
            return v -> { };
        }
    }

    public ConfigKey {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(defaultValue, "defaultValue");
        Objects.requireNonNull(defaultDoc, "defaultDoc");
        Objects.requireNonNull(parser, "parser");
        Objects.requireNonNull(validator, "validator");
        Objects.requireNonNull(doc, "doc");
    }

    /** Starts the declaration of {@code name}. */
    public static <T> Builder<T> define(String name, Class<T> type) {
        return new Builder<>(name, type);
    }

    /** The key of list entry {@code index}, e.g. {@code dump.users[0].name}; the name itself for other keys. */
    public String name(int index) {
        return name.replace("[i]", "[" + index + "]");
    }

    /**
     * This key with a fixed default: for a program that supplies one where the library requires the key (the
     * daemon's {@code binlog.dir}).
     */
    public ConfigKey<T> withDefault(String text) {
        return new ConfigKey<>(name, type, () -> text, text, parser, validator, doc, liveEditable, formatter);
    }

    /** The default in configuration syntax, or null when there is none. */
    public String defaultText() {
        return defaultValue.get();
    }

    /** Text (not null) to value; throws with the reason. */
    public T convert(String text) {
        return parser.apply(text.strip());
    }

    /** Checks a converted value; throws with the reason. */
    public void validate(T value) {
        validator.check(value);
    }

    /**
     * Converts and validates {@code text}.
     *
     * @throws ConfigurationException "Invalid value V for configuration K: reason"
     */
    public T parse(String text) {
        if (text == null) {
            throw ConfigurationException.invalid(name, null, "a value is required");
        }
        try {
            T value = convert(text);
            validate(value);
            return value;
        } catch (ConfigurationException e) {
            throw e;
        } catch (IllegalArgumentException e) {
            throw ConfigurationException.invalid(name, text, e.getMessage());
        }
    }

    /**
     * {@code text} parsed and written back in the key's canonical form: an enumeration's constant as declared
     * ({@code force} becomes {@code FORCE}, {@code MySQL} becomes {@code mysql}), any other value as given,
     * stripped. What a live edit stores and shows.
     *
     * @throws ConfigurationException as {@link #parse} when the text is refused
     */
    public String canonical(String text) {
        T value = parse(text);
        if (formatter != null) {
            return formatter.apply(value);
        }
        return value instanceof Enum<?> e ? e.name() : text.strip();
    }

    @Override
    public String toString() {
        return name + " (" + type.getSimpleName() + ", default " + defaultDoc + "): " + doc;
    }

    /** Declares a key step by step; {@link #doc} and a parser are required. */
    public static final class Builder<T> {
        private final String name;
        private final Class<T> type;
        private Supplier<String> defaultValue = () -> null;
        private String defaultDoc = "none";
        private Function<String, T> parser;
        private Validator<T> validator = Validator.none();
        private String doc;
        private boolean liveEditable;
        private Function<T, String> formatter;

        private Builder(String name, Class<T> type) {
            this.name = name;
            this.type = type;
        }

        /** A fixed default, in configuration syntax. */
        public Builder<T> defaultValue(String text) {
            this.defaultValue = () -> text;
            this.defaultDoc = text;
            return this;
        }

        /** A default computed when asked (e.g. from the max heap), and how the documentation states it. */
        public Builder<T> computedDefault(Supplier<String> text, String documented) {
            this.defaultValue = text;
            this.defaultDoc = documented;
            return this;
        }

        /** No default: the key must be given. */
        public Builder<T> required() {
            this.defaultValue = () -> null;
            this.defaultDoc = "required";
            return this;
        }

        public Builder<T> parser(Function<String, T> parser) {
            this.parser = parser;
            return this;
        }

        public Builder<T> validator(Validator<T> validator) {
            this.validator = validator;
            return this;
        }

        public Builder<T> doc(String doc) {
            this.doc = doc;
            return this;
        }

        /** A running daemon may change it (SET GLOBAL on the dump port, PUT /admin/config). */
        public Builder<T> liveEditable() {
            this.liveEditable = true;
            return this;
        }

        /**
         * How a value is written in configuration syntax, for {@link #canonical}; without it an enumeration is
         * written as its constant's name and anything else as given.
         */
        public Builder<T> formatter(Function<T, String> formatter) {
            this.formatter = formatter;
            return this;
        }

        public ConfigKey<T> build() {
            return new ConfigKey<>(name, type, defaultValue, defaultDoc, parser, validator, doc, liveEditable,
                    formatter);
        }
    }
}
