// The host audit's fixed policy (elicitkit check --host, docs/hosts.md): what a host with no
// person answers when it follows each question's "To do:" line. The same policy as
// elicitkit.check._host.policy_answer: decline or cancel when told so; otherwise accept with
// every default, and for a required field without one its first option or a plain valid value.
const EXAMPLES = {
  email: "name@example.com",
  uri: "https://example.com/",
  date: "2025-11-25",
  "date-time": "2025-11-25T14:30:00Z",
};

function plain(prop) {
  const items = prop.items ?? {};
  const options = prop.enum ?? prop.oneOf?.map((o) => o.const) ?? items.enum ?? items.anyOf?.map((o) => o.const);
  if (prop.type === "array") return options.slice(0, 1);
  if (options) return options[0];
  if (prop.type === "boolean") return true;
  if (prop.type === "integer" || prop.type === "number") return prop.minimum ?? 1;
  return EXAMPLES[prop.format] ?? "ok";
}

export function answer(params) {
  const toDo = params.message.split("To do:").pop().trim();
  if (toDo.startsWith("Press Decline")) return { action: "decline" };
  if (toDo.startsWith("Press Cancel")) return { action: "cancel" };
  if (params.mode === "url") return { action: "accept" };
  const schema = params.requestedSchema ?? {};
  const required = new Set(schema.required ?? []);
  const content = {};
  for (const [name, prop] of Object.entries(schema.properties ?? {})) {
    if (prop.default !== undefined) content[name] = prop.default;
    else if (required.has(name)) content[name] = plain(prop);
  }
  return { action: "accept", content };
}
