"""Privacy models: small frozen objects that judge many classes at once."""

from starmin.models.base import Evaluation, PrivacyModel
from starmin.models.k_anonymity import KAnonymity

__all__ = ["Evaluation", "KAnonymity", "PrivacyModel"]
