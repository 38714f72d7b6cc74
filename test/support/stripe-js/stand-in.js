/*
 * A small stand-in for Stripe.js (https://js.stripe.com/v3/) for browser
 * tests: the tests route js.stripe.com here and api.stripe.com to the
 * Stripe double. It implements what the hosted checkout uses:
 * `Stripe(publishableKey).elements({mode, amount, currency})`, an element
 * mounted as a card-number field (no `name`: like Stripe's iframe, the card
 * is no part of the page's form), `elements.submit()`, and
 * `confirmPayment`/`confirmSetup`, which confirm the intent with the
 * publishable key and the client secret as Stripe.js does, play the
 * 3-D Secure challenge as a dialog (complete or fail), and go to
 * `return_url` with Stripe's parameters, or resolve `{error}` on a refusal.
 */
(function () {
  var API = 'https://api.stripe.com/v1';

  function Stripe(key) {
    if (!/^pk_(test|live)_\w+$/.test(key))
      throw new Error('Stripe(): a publishable key is required.');
    var card = null;

    function post(path, params) {
      var body = new URLSearchParams();
      body.append('key', key);
      Object.keys(params).forEach(function (name) {
        if (params[name] !== undefined) body.append(name, params[name]);
      });
      return fetch(API + path, { method: 'POST', body: body }).then(
        function (response) {
          return response.json().then(function (json) {
            return { ok: response.ok, body: json };
          });
        },
      );
    }

    function challenge() {
      return new Promise(function (resolve) {
        var frame = document.createElement('div');
        frame.setAttribute('data-stripe-3ds', '');
        frame.setAttribute('role', 'dialog');
        frame.style.cssText =
          'position:fixed;inset:20% 25%;background:#fff;color:#111;border:2px solid #635bff;border-radius:8px;padding:24px;z-index:10';
        frame.innerHTML =
          '<p>Test 3-D Secure challenge</p>' +
          '<button type="button" data-3ds="complete">Complete authentication</button> ' +
          '<button type="button" data-3ds="fail">Fail authentication</button>';
        frame.addEventListener('click', function (event) {
          var result = event.target.getAttribute('data-3ds');
          if (!result) return;
          frame.remove();
          resolve(result);
        });
        document.body.appendChild(frame);
      });
    }

    async function confirm(kind, options) {
      var secret = options.clientSecret;
      var id = secret.slice(0, secret.indexOf('_secret_'));
      var resource = kind === 'setup' ? '/setup_intents/' : '/payment_intents/';
      var returnUrl = options.confirmParams.return_url;
      var confirmed = await post(resource + id + '/confirm', {
        client_secret: secret,
        'payment_method_data[type]': 'card',
        'payment_method_data[card][number]': card.value.replace(/\s/g, ''),
      });
      if (!confirmed.ok) return { error: confirmed.body.error };
      var intent = confirmed.body;
      if (intent.status === 'requires_action') {
        var answered = await post(resource + id + '/three_d_secure', {
          client_secret: secret,
          result: await challenge(),
        });
        if (!answered.ok) return { error: answered.body.error };
        intent = answered.body;
      }
      var prefix = kind === 'setup' ? 'setup_intent' : 'payment_intent';
      var url = new URL(returnUrl);
      url.searchParams.set(prefix, id);
      url.searchParams.set(prefix + '_client_secret', secret);
      url.searchParams.set(
        'redirect_status',
        intent.status === 'succeeded' ? 'succeeded' : 'processing',
      );
      window.location.assign(url.toString());
      return new Promise(function () {});
    }

    return {
      elements: function (options) {
        if (
          !options ||
          (options.mode !== 'payment' && options.mode !== 'setup')
        )
          throw new Error('elements(): mode must be payment or setup.');
        if (options.mode === 'payment' && !(options.amount >= 0))
          throw new Error('elements(): a payment needs an amount.');
        return {
          create: function (type) {
            if (type !== 'payment')
              throw new Error('Only the Payment Element.');
            return {
              mount: function (selector) {
                card = document.createElement('input');
                card.setAttribute('data-stand-in-card', '');
                card.setAttribute('aria-label', 'Card number');
                card.placeholder = '1234 1234 1234 1234';
                card.autocomplete = 'off';
                document.querySelector(selector).appendChild(card);
              },
            };
          },
          submit: function () {
            var digits = card ? card.value.replace(/\s/g, '') : '';
            return Promise.resolve(
              /^\d{12,19}$/.test(digits)
                ? {}
                : {
                    error: {
                      type: 'validation_error',
                      code: 'incomplete_number',
                      message: 'Your card number is incomplete.',
                    },
                  },
            );
          },
        };
      },
      confirmPayment: function (options) {
        return confirm('payment', options);
      },
      confirmSetup: function (options) {
        return confirm('setup', options);
      },
    };
  }

  window.Stripe = Stripe;
})();
