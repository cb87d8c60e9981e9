// Keeps every number exact in Swagger UI. The browser parses JSON and YAML into
// JavaScript numbers (float64), so the contract's example 12345678901234567890 would
// be shown, and sent by "Try it out", as 12345678901234567000, and a response holding
// it would be displayed rounded. JSON.parse's source text access (context.source)
// gives the literal as written: a number that float64 would change is carried as a
// marked string, and JSON.stringify writes it back as the original literal.
(function () {
  "use strict";
  var MARK = "\uE000";
  var MARKED = /"\uE000(-?[0-9][0-9.eE+-]*)\uE000"/g;
  var parse = JSON.parse;
  var stringify = JSON.stringify;

  // canonical writes a decimal literal as sign, significant digits and exponent, so
  // that 1.0 and 1, or 1e2 and 100, compare equal and only a real change shows.
  function canonical(s) {
    var m = /^(-?)([0-9]*)(?:\.([0-9]*))?(?:[eE]([+-]?[0-9]+))?$/.exec(s);
    if (!m) return s;
    var digits = (m[2] || "") + (m[3] || "");
    var exp = (m[2] || "").length + parseInt(m[4] || "0", 10);
    var lead = /^0*/.exec(digits)[0].length;
    digits = digits.slice(lead).replace(/0+$/, "");
    exp = digits ? exp - lead : 0;
    return m[1] + "0." + digits + "e" + exp;
  }

  function exactParse(text, reviver) {
    return parse(text, function (key, value, context) {
      if (typeof value === "number" && context && typeof context.source === "string" &&
          canonical(context.source) !== canonical(String(value))) {
        value = MARK + context.source + MARK;
      }
      return reviver ? reviver.call(this, key, value, context) : value;
    });
  }

  var supported = false;
  try {
    parse("1", function (k, v, context) { supported = !!context && context.source === "1"; return v; });
  } catch (e) { supported = false; }
  if (!supported) {
    window.inferdDocs = { exact: false, responseInterceptor: function (res) { return res; } };
    return;
  }

  JSON.parse = exactParse;
  JSON.stringify = function (value, replacer, space) {
    var out = stringify.call(JSON, value, replacer, space);
    return typeof out === "string" && out.indexOf(MARK) >= 0 ? out.replace(MARKED, "$1") : out;
  };

  window.inferdDocs = {
    exact: true,
    // Swagger UI reads the contract with a YAML parser, not JSON.parse: the served
    // JSON is rewritten with marked strings before it gets there.
    responseInterceptor: function (res) {
      if (res && typeof res.text === "string" && /\/openapi\.json(\?|$)/.test(res.url || "")) {
        try {
          res.text = stringify.call(JSON, exactParse(res.text));
        } catch (e) { /* not JSON: leave it to Swagger UI's own error */ }
      }
      return res;
    }
  };
})();
