package engine

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/pkg/errors"

	"locksim/internal/bounded"
	"locksim/sim"
)

// Case files write every duration as Go writes one ("1s", "1.5ms"), not
// as nanoseconds, and read either. Encoding goes through the generic
// JSON tree of the value, rewritten where its Go type has a time.Duration;
// decoding rewrites the strings back before the ordinary decoder runs.

var durationType = reflect.TypeOf(time.Duration(0))

// marshalReadable encodes v as indented JSON with its durations as strings
// and without escaping <, > and &.
func marshalReadable(v any) ([]byte, error) {
	raw, err := encode(v, "")
	if err != nil {
		return nil, err
	}
	tree, err := decodeTree(raw)
	if err != nil {
		return nil, err
	}
	tree, err = rewriteDurations(tree, reflect.TypeOf(v), func(x any) (any, error) {
		n, ok := x.(json.Number)
		if !ok {
			return x, nil
		}
		ns, err := n.Int64()
		if err != nil {
			return nil, errors.Errorf("duration %s is not whole nanoseconds", n)
		}
		return sim.FormatDuration(time.Duration(ns)), nil
	})
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if err := encodeTree(&b, tree, 0); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// unmarshalReadable decodes JSON written by marshalReadable, or with
// durations as nanoseconds, into v (a pointer).
func unmarshalReadable(b []byte, v any) error {
	tree, err := decodeTree(b)
	if err != nil {
		return err
	}
	tree, err = rewriteDurations(tree, reflect.TypeOf(v).Elem(), func(x any) (any, error) {
		s, ok := x.(string)
		if !ok {
			return x, nil
		}
		d, err := time.ParseDuration(s)
		if err != nil {
			return nil, errors.Errorf("duration %s: want a Go duration such as 1.5s or 250ms", bounded.Q(s))
		}
		return json.Number(strconv.FormatInt(int64(d), 10)), nil
	})
	if err != nil {
		return err
	}
	var raw bytes.Buffer
	if err := encodeTree(&raw, tree, 0); err != nil {
		return err
	}
	return json.Unmarshal(raw.Bytes(), v)
}

// encode writes v as JSON, indented by indent ("" for compact), without
// HTML escaping and without the encoder's trailing newline.
func encode(v any, indent string) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if indent != "" {
		enc.SetIndent("", indent)
	}
	if err := enc.Encode(v); err != nil {
		return nil, errors.Wrap(err, "encoding json")
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// object is a JSON object that keeps its keys in order (encoding/json's
// field order), so that a rewritten case reads as the struct does.
type object []member

type member struct {
	key string
	val any
}

func (o object) get(k string) (int, bool) {
	for i, m := range o {
		if m.key == k {
			return i, true
		}
	}
	return -1, false
}

// decodeTree decodes JSON into objects, slices and leaves (json.Number,
// strings, bools, nil).
func decodeTree(b []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	return decodeValue(dec)
}

func decodeValue(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch tok {
	case json.Delim('{'):
		o := object{}
		for dec.More() {
			k, err := dec.Token()
			if err != nil {
				return nil, err
			}
			v, err := decodeValue(dec)
			if err != nil {
				return nil, err
			}
			o = append(o, member{k.(string), v})
		}
		_, err := dec.Token()
		return o, err
	case json.Delim('['):
		xs := []any{}
		for dec.More() {
			v, err := decodeValue(dec)
			if err != nil {
				return nil, err
			}
			xs = append(xs, v)
		}
		_, err := dec.Token()
		return xs, err
	}
	return tok, nil
}

// encodeTree writes a tree as encoding/json's MarshalIndent would, with
// two-space indentation and no HTML escaping.
func encodeTree(b *bytes.Buffer, v any, depth int) error {
	pad := func(d int) { b.WriteString("\n" + strings.Repeat("  ", d)) }
	switch x := v.(type) {
	case object:
		if len(x) == 0 {
			b.WriteString("{}")
			return nil
		}
		b.WriteString("{")
		for i, m := range x {
			if i > 0 {
				b.WriteString(",")
			}
			pad(depth + 1)
			k, _ := encode(m.key, "")
			b.Write(k)
			b.WriteString(": ")
			if err := encodeTree(b, m.val, depth+1); err != nil {
				return err
			}
		}
		pad(depth)
		b.WriteString("}")
	case []any:
		if len(x) == 0 {
			b.WriteString("[]")
			return nil
		}
		b.WriteString("[")
		for i, e := range x {
			if i > 0 {
				b.WriteString(",")
			}
			pad(depth + 1)
			if err := encodeTree(b, e, depth+1); err != nil {
				return err
			}
		}
		pad(depth)
		b.WriteString("]")
	default:
		leaf, err := encode(x, "")
		if err != nil {
			return err
		}
		b.Write(leaf)
	}
	return nil
}

// rewriteDurations walks tree along Go type t and replaces, with conv,
// every value whose type is time.Duration. Fields are matched by their
// JSON names; values the type does not describe are left alone.
func rewriteDurations(tree any, t reflect.Type, conv func(any) (any, error)) (any, error) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == durationType {
		return conv(tree)
	}
	switch t.Kind() {
	case reflect.Struct:
		m, ok := tree.(object)
		if !ok {
			return tree, nil
		}
		for i := range t.NumField() {
			f := t.Field(i)
			if f.Anonymous && f.Tag.Get("json") == "" && f.Type.Kind() == reflect.Struct {
				if _, err := rewriteDurations(m, f.Type, conv); err != nil { // its fields are flattened into m
					return nil, err
				}
				continue
			}
			name, ok := jsonName(f)
			if !ok {
				continue
			}
			if i, present := m.get(name); present {
				nv, err := rewriteDurations(m[i].val, f.Type, conv)
				if err != nil {
					return nil, errors.Wrap(err, name)
				}
				m[i].val = nv
			}
		}
		return m, nil
	case reflect.Slice, reflect.Array:
		xs, ok := tree.([]any)
		if !ok {
			return tree, nil
		}
		for i := range xs {
			nv, err := rewriteDurations(xs[i], t.Elem(), conv)
			if err != nil {
				return nil, err
			}
			xs[i] = nv
		}
		return xs, nil
	case reflect.Map:
		m, ok := tree.(object)
		if !ok {
			return tree, nil
		}
		for i := range m {
			nv, err := rewriteDurations(m[i].val, t.Elem(), conv)
			if err != nil {
				return nil, errors.Wrap(err, m[i].key)
			}
			m[i].val = nv
		}
		return m, nil
	}
	return tree, nil
}

// jsonName is the key encoding/json uses for an exported field, and
// whether the field is encoded at all.
func jsonName(f reflect.StructField) (string, bool) {
	if !f.IsExported() {
		return "", false
	}
	tag := f.Tag.Get("json")
	if tag == "-" {
		return "", false
	}
	if name, _, _ := strings.Cut(tag, ","); name != "" {
		return name, true
	}
	return f.Name, true
}
