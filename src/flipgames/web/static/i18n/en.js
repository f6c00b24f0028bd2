// The UI's English words (the default). After `export default` comes a JSON object: one
// "key": "words" a line, `{name}` where t() puts a value. Add a key here and in ja.js
// (tests/web/test_i18n.py checks both have the same keys, and that every key used exists).
export default {
  "common.cancel": "Cancel",
  "nav.lobby": "Lobby",
  "settings.title": "Settings",
  "settings.theme": "Theme",
  "settings.light": "Light",
  "settings.dark": "Dark",
  "settings.system": "System",
  "settings.language": "Language",
  "settings.sounds": "Move sounds",
  "settings.notify": "\"Your turn\" notifications (online games, when this tab is hidden)",
  "settings.notify_unsupported": "This browser cannot show notifications.",
  "settings.notify_refused": "The browser refused notifications: allow them in its site settings to turn them on.",
  "identity.name": "Name",
  "identity.password": "Password",
  "identity.signin": "Sign in"
};
